import CPlatform
import PingCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// A copy of a secret in the Linux kernel's session keyring (keyrings(7)): found only through this
/// login session's keyring, readable only by processes of this uid (user permissions; no possessor
/// permissions, which the kernel grants to any process holding the session keyring whatever its uid:
/// `su` without `-l`, `sudo -u`, `setpriv` and `runuser` keep it), gone at its timeout, at the end of the
/// session or when invalidated, and never written to disk.
package enum KernelKeyring {
    /// User (the key's uid): read, write, search, link, set attributes. Possessor: view only (so that
    /// /proc/keys lists it to this session alone, not to every session of the uid). Group, other: nothing.
    package static let userOnly: UInt32 = 0x013E_0000

    /// The payload of the "user" key `description` in the session keyring when it is exactly `length`
    /// bytes: two system calls (search, read). nil when absent, expired or unreadable.
    package static func read(_ description: String, length: Int) -> [UInt8]? {
        let id = pingcli_keyctl_search_session("user", description)
        guard id > 0 else { return nil }
        var payload = [UInt8](repeating: 0, count: length)
        let count = pingcli_keyctl_read(id, &payload, length)
        guard count == length else {
            Sodium.wipe(&payload)
            return nil
        }
        return payload
    }

    /// Adds (or replaces) the "user" key `description` in the session keyring, for this uid only, expiring
    /// after `timeout` seconds. The key is created with a placeholder and given the secret only once its
    /// permissions are closed. Best effort: false when the kernel refuses (no keyring support, quota).
    @discardableResult
    package static func add(_ description: String, _ secret: [UInt8], timeout: UInt32) -> Bool {
        var placeholder = [UInt8](repeating: 0, count: secret.count)
        let id = pingcli_add_key("user", description, &placeholder, placeholder.count, pingcli_session_keyring)
        guard id > 0 else { return false }
        // The timeout last: an update resets a user key's expiry.
        guard pingcli_keyctl_setperm(id, userOnly) == 0,
            secret.withUnsafeBytes({ pingcli_keyctl_update(id, $0.baseAddress, $0.count) }) == 0,
            pingcli_keyctl_set_timeout(id, timeout) == 0
        else {
            _ = pingcli_keyctl_invalidate(id)
            return false
        }
        return true
    }

    /// Removes the key `description` from the session keyring at once, if present.
    package static func invalidate(_ description: String) {
        let id = pingcli_keyctl_search_session("user", description)
        if id > 0 { _ = pingcli_keyctl_invalidate(id) }
    }
}
