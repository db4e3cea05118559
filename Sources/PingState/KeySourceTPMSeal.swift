import PingBase
import PingCrypto
import PingPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// The TPM's half of the key that protects the OATH secrets (`OTPStore`) and the device keys'
/// records (`DeviceKeyStore`) when a TPM is reachable: 32 random bytes sealed in a TPM 2.0 data object
/// under the owner hierarchy's storage key, so that only that TPM unseals them. The records are then
/// encrypted under a key derived from both the cache key and those bytes: a copy of the home on another
/// machine, or under a uid that cannot open this TPM, reads no secret and signs nothing, even with the
/// cache key's file in the copy. The token cache never uses it, so `token --raw` never loads tpm2-tss.
///
/// `$XDG_DATA_HOME/pingcli/tpm-seal`, beside the key (mode 0600, created once, exclusively):
///
/// ```
/// offset 0   4 bytes  magic "PCLT"
/// offset 4   1 byte   format version (1)
/// offset 5   3 bytes  zero
/// offset 8   …        the TPM's sealed object: TPM2B_PUBLIC then TPM2B_PRIVATE, marshalled
/// ```
///
/// The TPM is the one device keys use (`TPM2TOOLS_TCTI`, else a TPM device this user may open); one
/// that is configured and does not answer is an error, never a silent downgrade to the cache key alone.
package final class TPMSeal: @unchecked Sendable {
    package let paths: Paths
    package let access: TPM2.Access
    private var secret: [UInt8] = []
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    package static let magic: [UInt8] = Array("PCLT".utf8)
    package static let header: [UInt8] = magic + [1, 0, 0, 0]

    package init(paths: Paths, access: TPM2.Access) {
        self.paths = paths
        self.access = access
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        Sodium.wipe(&secret)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    package var file: String { paths.dataDirectory + "/tpm-seal" }

    /// The TPM to seal to, its TCTI through its gate; nil when there is none (nothing configured, no
    /// device this user may open).
    package func reachable() throws(SealedFailure) -> TPM2.Access? {
        let checked = try access.checked()
        guard case .some = checked.tcti else { return nil }
        return checked
    }

    /// The key a record is written under, and whether it is sealed: with a TPM reachable, the cache key
    /// combined with the sealed bytes (sealed now if they never were); else the cache key. `session` is
    /// a connection to that TPM already open (swtpm serves one at a time).
    package func writingKey(
        cacheKey: [UInt8], doing: String, session: TPM2.Session? = nil
    ) throws(SealedFailure) -> (key: [UInt8], sealed: Bool) {
        guard let checked = try reachable() else { return (cacheKey, false) }
        return (Self.derive(cacheKey, try unsealed(checked, create: true, doing: doing, session: session)), true)
    }

    /// The key a record that says it is `sealed` was written under.
    package func readingKey(
        cacheKey: [UInt8], sealed: Bool, doing: String, session: TPM2.Session? = nil
    ) throws(SealedFailure) -> [UInt8] {
        guard sealed else { return cacheKey }
        guard let checked = try reachable() else { throw .noTPM(doing: doing) }
        return Self.derive(cacheKey, try unsealed(checked, create: false, doing: doing, session: session))
    }

    /// Both halves through BLAKE2b, with the purpose first: neither alone opens a record.
    package static func derive(_ cacheKey: [UInt8], _ sealed: [UInt8]) -> [UInt8] {
        var input = Array("pingcli tpm-sealed records\u{0}".utf8) + cacheKey + sealed
        defer { Sodium.wipe(&input) }
        return Sodium.blake2b256(input)
    }

    /// The sealed bytes, unsealed once per command; made and sealed first when `create` and there are none.
    private func unsealed(
        _ access: TPM2.Access, create: Bool, doing: String, session given: TPM2.Session?
    ) throws(SealedFailure) -> [UInt8] {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if !secret.isEmpty { return secret }
        var opened = given
        if opened == nil {
            do { opened = try TPM2.open(access) } catch { throw .tpm(TPMFailure(error, access, doing: doing)) }
        }
        guard let session = opened else { throw .tpm(TPMFailure(.unreachable(code: 0), access, doing: doing)) }
        if let blob = try readBlob() {
            secret = try unseal(blob, session, access, doing)
            return secret
        }
        guard create else { throw .sealMissing(doing: doing, file: file) }
        var fresh = Sodium.randomBytes(Sodium.aeadKeyLength)
        defer { Sodium.wipe(&fresh) }
        let blob: [UInt8]
        do { blob = try session.seal(fresh) } catch { throw .tpm(TPMFailure(error, access, doing: doing)) }
        // Two first seals at once: exactly one file wins, and both use it.
        let created = try SealedFailure.file { () throws(FileFailure) in
            try FileSystem.ensurePrivateDirectory(paths.dataDirectory)
            return try FileSystem.createExclusively(file, Self.header + blob)
        }
        if created {
            secret = fresh
        } else if let winner = try readBlob() {
            secret = try unseal(winner, session, access, doing)
        }
        return secret
    }

    private func readBlob() throws(SealedFailure) -> [UInt8]? {
        let found = try SealedFailure.file { () throws(FileFailure) in try FileSystem.read(file, limit: 16 * 1024, protection: .secret) }
        guard let bytes = found else { return nil }
        guard bytes.count > Self.header.count, Array(bytes.prefix(Self.header.count)) == Self.header else {
            throw .sealNotPingcli(file: file)
        }
        return Array(bytes.dropFirst(Self.header.count))
    }

    private func unseal(
        _ blob: [UInt8], _ session: TPM2.Session, _ access: TPM2.Access, _ doing: String
    ) throws(SealedFailure)
        -> [UInt8]
    {
        do throws(TPM2.Failure) {
            let bytes = try session.unseal(blob)
            guard bytes.count == Sodium.aeadKeyLength else { throw TPM2.Failure.damagedBlob }
            return bytes
        } catch {
            switch error {
            case .foreignBlob: throw .sealForeign(doing: doing, access: access, file: file)
            case .damagedBlob: throw .sealDamaged(doing: doing, file: file)
            default: throw .tpm(TPMFailure(error, access, doing: doing))
            }
        }
    }
}
