import CPlatform
import PingCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// A secret in the Linux kernel's session keyring (keyrings(7)), gone at its timeout, at the end of the
/// session or when invalidated, and never written to disk. Its permissions say who reads it: `userOnly`,
/// any process of this uid, in any session (found by its serial number when not through this session's
/// keyring), but no process of another uid; `possessorOnly`, any process that holds this session's
/// keyring, whatever its uid (`su` without `-l`, `sudo -u`, `setpriv` and `runuser` keep it), but no
/// process of another session. Neither alone is "this uid in this session": a secret kept for that is
/// split in one key of each (`KernelKeyCopy` in PingState).
package enum KernelKeyring {
    /// User (the key's uid): read, write, search, link, set attributes. Possessor: view only (so that
    /// /proc/keys lists it to this session alone, not to every session of the uid). Group, other: nothing.
    package static let userOnly: UInt32 = 0x013E_0000
    /// Possessor: view, read, write, search, link, set attributes. User, group, other: nothing.
    package static let possessorOnly: UInt32 = 0x3F00_0000

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

    /// Adds (or replaces) the "user" key `description` in the session keyring with `permissions`
    /// (`userOnly` unless given), expiring after `timeout` seconds. The key is created with a placeholder
    /// and given the secret only once its permissions are closed. Best effort: false when the kernel
    /// refuses (no keyring support, quota).
    @discardableResult
    package static func add(_ description: String, _ secret: [UInt8], timeout: UInt32, permissions: UInt32 = userOnly) -> Bool {
        var placeholder = [UInt8](repeating: 0, count: secret.count)
        let id = pingcli_add_key("user", description, &placeholder, placeholder.count, pingcli_session_keyring)
        guard id > 0 else { return false }
        // The timeout last: an update resets a user key's expiry.
        guard pingcli_keyctl_setperm(id, permissions) == 0,
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
