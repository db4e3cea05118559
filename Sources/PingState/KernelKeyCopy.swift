import PingCrypto
import PingPlatform

/// The kernel keyring's copy of the cache key, in two halves that only a process of this uid in this
/// login session holds together (finding 6 of issue 41): the cache key sealed (XChaCha20-Poly1305) under a
/// random wrapping key, in a "user" key that only this uid may read (from any of its sessions, by its
/// serial number), and the wrapping key in a second key that only holders of this session's keyring may
/// read (of any uid: `su` without `-l`, `sudo -u`). A process of another uid in the session reads the
/// wrapping key but not the sealed one; a process of this uid in another session (an SSH login, a cron
/// job) reads the sealed one but not the wrapping key: neither gets the cache key. A sealed half that does
/// not open (replaced, or an older pingcli's plain copy) is as good as none: the Secret Service is asked.
package enum KernelKeyCopy {
    package static func sealedName(_ id: String) -> String { "pingcli:cache-key:" + id }
    package static func wrapName(_ id: String) -> String { "pingcli:cache-wrap:" + id }
    package static var sealedLength: Int { Sodium.aeadNonceLength + Sodium.aeadKeyLength + Sodium.aeadTagLength }

    /// The cache key for the item `id`; nil when either half is missing, expired, unreadable or does not open.
    package static func read(_ id: String) -> [UInt8]? {
        guard var wrap = KernelKeyring.read(wrapName(id), length: Sodium.aeadKeyLength) else { return nil }
        defer { Sodium.wipe(&wrap) }
        guard let sealed = KernelKeyring.read(sealedName(id), length: sealedLength) else { return nil }
        let nonce = Array(sealed.prefix(Sodium.aeadNonceLength))
        let ciphertext = Array(sealed.dropFirst(Sodium.aeadNonceLength))
        return Sodium.open(ciphertext: ciphertext, associatedData: Array(sealedName(id).utf8), nonce: nonce, key: wrap)
    }

    /// Both halves, for `timeout` seconds, with a new wrapping key. Best effort: nothing when the kernel refuses.
    package static func add(_ id: String, _ key: [UInt8], timeout: UInt32) {
        var wrap = Sodium.randomBytes(Sodium.aeadKeyLength)
        defer { Sodium.wipe(&wrap) }
        let nonce = Sodium.randomBytes(Sodium.aeadNonceLength)
        let sealed = nonce + Sodium.seal(plaintext: key, associatedData: Array(sealedName(id).utf8), nonce: nonce, key: wrap)
        guard KernelKeyring.add(wrapName(id), wrap, timeout: timeout, permissions: KernelKeyring.possessorOnly) else { return }
        if !KernelKeyring.add(sealedName(id), sealed, timeout: timeout) { KernelKeyring.invalidate(wrapName(id)) }
    }

    /// Both halves removed at once.
    package static func invalidate(_ id: String) {
        KernelKeyring.invalidate(sealedName(id))
        KernelKeyring.invalidate(wrapName(id))
    }
}
