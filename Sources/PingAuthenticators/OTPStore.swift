import PingBase
import PingCrypto
import PingOTP
import PingPlatform
import PingState

#if canImport(Glibc)
    import Glibc
#endif

/// The OATH accounts (`pingcli otp`), in one file encrypted under the cache key, the same key and cipher as
/// the token cache (`EncryptedTokenFile`), and never a plain file:
///
/// ```
/// offset 0   4 bytes  magic "PCLO"
/// offset 4   1 byte   format version (4; 4 keeps each account's AM origin)
/// offset 5   1 byte   protection: 0 the cache key, 1 the cache key and the TPM's sealed key (`TPMSeal`)
/// offset 6   2 bytes  zero
/// offset 8   8 bytes  generation, big-endian: one more than the store it replaced
/// offset 16 24 bytes  XChaCha20-Poly1305 nonce, random per write
/// offset 40  …        ciphertext of the accounts (`OTPRecords`), then the 16-byte tag
/// ```
///
/// The associated data is the header and the file's purpose, so a token cache renamed into its place does
/// not decrypt, and the generation cannot be edited. Every change (an account added or removed, an HOTP
/// counter advanced) is a read, a change and an atomic replace under the store's lock (`accounts.lock`),
/// so two callers never get the same HOTP code and never lose each other's change. Each write then
/// records its generation beside the key (`GenerationRecord`, `otp-generation`), as the token cache's
/// are: a store older than that (restored from a backup or a sync, which would roll an HOTP counter
/// back and hand out a code again) is refused. Version 1 (no generation, an 8-byte header, read as
/// generation 0) is still read until a generation is recorded; the next write replaces it. Version 2 (no
/// protection byte) is read as the cache key's.
///
/// With a TPM reachable (`TPM2TOOLS_TCTI`, else a TPM device this user may open), every write is sealed:
/// the key is the cache key combined with 32 bytes only that TPM unseals, so a copy of the home without
/// that TPM reads no secret. A store written before (or without a TPM) is read under the cache key alone
/// and sealed at its next write; `OTPAccounts` writes it at the next locked use (`sealPending`).
package struct OTPStore: Sendable {
    package let paths: Paths
    /// The TPM's half of the key, when a TPM is reachable.
    package let seal: TPMSeal
    /// How long to wait for another pingcli that holds the store (a code takes milliseconds).
    package var lockTimeout: Double = 40
    package var lockClock = WaitClock.system

    package static let magic: [UInt8] = Array("PCLO".utf8)
    package static let version: UInt8 = 4
    /// The header's length in a store of `version`: 16 from version 2 (the generation), 8 before.
    package static func headerLength(_ version: UInt8) -> Int { version >= 2 ? 16 : 8 }

    /// The store under `paths`, sealed to the TPM `tpm` names when one is reachable (`.absent`: never).
    package init(paths: Paths, tpm: TPM2.Access = .absent) {
        self.paths = paths
        self.seal = TPMSeal(paths: paths, access: tpm)
    }

    /// Beside the profiles and the device keys, in the config directory: one place for pingcli's
    /// encrypted records (the key that opens them is elsewhere).
    package var directory: String { paths.configDirectory + "/otp" }
    package var file: String { directory + "/accounts.enc" }
    package var lockFile: String { directory + "/accounts.lock" }
    /// The generation of the newest store this machine wrote, beside the key (not secret).
    package var generation: GenerationRecord { GenerationRecord(path: paths.dataDirectory + "/otp-generation") }

    /// The recorded generation (`generation.read()`), a damaged record as `OTPStoreFailure.generationDamaged`.
    package func recordedGeneration() throws(OTPStoreFailure) -> UInt64 {
        do {
            return try generation.read()
        } catch {
            switch error {
            case .file(let failure): throw .file(failure)
            case .damaged(let path): throw .generationDamaged(path: path)
            }
        }
    }
    /// Where the builds of an earlier round kept the store: `$XDG_STATE_HOME/pingcli/otp/`.
    package var legacyDirectory: String { paths.stateDirectory + "/otp" }

    package static func header(version: UInt8 = version, sealed: Bool = false, generation: UInt64) -> [UInt8] {
        var header = magic + [version, version >= 3 && sealed ? 1 : 0, 0, 0]
        if version >= 2 { OTPRecords.append(&header, generation, width: 8) }
        return header
    }

    package static func associatedData(header: [UInt8]) -> [UInt8] { header + Array("\u{0}pingcli otp accounts".utf8) }

    /// Whether any account was ever stored (no key is needed to say there is none); an earlier build's
    /// store under the state directory counts (the next lock takes it).
    package var exists: Bool { FileSystem.exists(file) || FileSystem.exists(legacyDirectory + "/accounts.enc") }

    /// The store's lock, held until `unlock` (or the process ends). Under it, an earlier build's store is
    /// taken from the state directory once: moved when there is none here yet, else left alone.
    package func lock(holder: String) throws(FileFailure) -> FileLock {
        try FileSystem.ensurePrivateDirectory(directory)
        let lock = try FileLock(path: lockFile, timeout: lockTimeout, clock: lockClock, subject: .otpStore, holder: holder)
        do { try takeLegacyStore() } catch {
            lock.unlock()
            throw error
        }
        return lock
    }

    /// The state directory's store moved here (one `rename(2)`, or an atomic copy across file systems),
    /// only while there is none here; its lock file and directory removed when nothing else is left.
    private func takeLegacyStore() throws(FileFailure) {
        let legacy = legacyDirectory + "/accounts.enc"
        guard FileSystem.exists(legacy), !FileSystem.exists(file) else { return }
        try FileSystem.checkExisting(legacy, protection: .secret)
        if rename(legacy, file) != 0 {
            guard let bytes = try FileSystem.read(legacy, limit: 4 << 20, protection: .secret) else { return }
            try FileSystem.atomicWrite(file, bytes)
            try FileSystem.remove(legacy)
        }
        try FileSystem.remove(legacyDirectory + "/accounts.lock")
        _ = rmdir(legacyDirectory)
    }

    /// The accounts, none when the file does not exist yet. Call it under `lock` when the result is written
    /// back. Worded by the caller (`OTPStoreAdvice.worded`).
    package func readAccounts(key: [UInt8]) throws(OTPStoreFailure) -> [OTPAccount] {
        var plaintext: [UInt8] = []
        defer { Sodium.wipe(&plaintext) }
        guard let (stored, version) = try open(key: key, into: &plaintext) else { return [] }
        // Authentic: now its age. The generation is read only once the tag vouched for it.
        let recorded = try recordedGeneration()
        guard stored >= recorded else { throw .rolledBack(file: file, stored: stored, recorded: recorded) }
        // Before format 4 no account has an origin: each is read as one of no AM in particular.
        guard let accounts = OTPRecords.decode(plaintext, origins: version >= 4) else {
            throw .recordsDamaged(file: file)
        }
        return accounts
    }

    /// The store decrypted into `plaintext`, the generation its header gives and its format; nil when there is none.
    private func open(key: [UInt8], into plaintext: inout [UInt8]) throws(OTPStoreFailure) -> (UInt64, UInt8)? {
        // Without the lock (a list), an earlier build's store not yet taken is read where it is.
        let found = try OTPStoreFailure.file { () throws(FileFailure) -> [UInt8]? in
            if let bytes = try FileSystem.read(file, limit: 4 << 20, protection: .secret) { return bytes }
            return try FileSystem.read(legacyDirectory + "/accounts.enc", limit: 4 << 20, protection: .secret)
        }
        guard var bytes = found else { return nil }
        defer { Sodium.wipe(&bytes) }
        guard bytes.count >= 8, Array(bytes.prefix(4)) == Self.magic else { throw .notAStore(file: file) }
        guard (1...Self.version).contains(bytes[4]), bytes[5] == 0 || (bytes[4] >= 3 && bytes[5] == 1), bytes[6] == 0, bytes[7] == 0
        else { throw .unknownFormat(file: file, version: bytes[4]) }
        let headerLength = Self.headerLength(bytes[4])
        guard bytes.count >= headerLength + Sodium.aeadNonceLength + Sodium.aeadTagLength else { throw .notAStore(file: file) }
        let header = Array(bytes[..<headerLength])
        let nonce = Array(bytes[headerLength..<(headerLength + Sodium.aeadNonceLength)])
        let ciphertext = Array(bytes[(headerLength + Sodium.aeadNonceLength)...])
        var recordKey = try OTPStoreFailure.sealed { () throws(SealedFailure) in
            try seal.readingKey(cacheKey: key, sealed: bytes[5] == 1, doing: "read the OTP store \(file)")
        }
        defer { Sodium.wipe(&recordKey) }
        guard
            let opened = Sodium.open(
                ciphertext: ciphertext, associatedData: Self.associatedData(header: header), nonce: nonce, key: recordKey)
        else { throw .tampered(file: file) }
        plaintext = consume opened
        var reader = RecordReader(header, maximumField: 0)
        _ = reader.integer(8)
        return (reader.integer(8) ?? 0, header[4])
    }

    /// Replaces the store with `accounts` (atomically; under `lock`), one generation after the recorded
    /// one, and then records that generation: a code computed from the new store is handed out only after
    /// both are written, so a store put back later cannot give it again. Sealed to the TPM when one is
    /// reachable.
    /// Worded by the caller (`OTPStoreAdvice.worded`).
    package func writeAccounts(_ accounts: [OTPAccount], key: [UInt8]) throws(OTPStoreFailure) {
        try OTPStoreFailure.file { () throws(FileFailure) in try FileSystem.ensurePrivateDirectory(directory) }
        let recorded = try recordedGeneration()
        // A crash between the two writes leaves the store one ahead of the record: go past that store
        // too, so that a copy of it (from which a code was handed out) never reads as current again.
        let next =
            max(recorded, min(try OTPStoreFailure.file { () throws(FileFailure) in try storedHeader().generation }, recorded &+ 1)) &+ 1
        var (recordKey, sealedToTPM) = try OTPStoreFailure.sealed { () throws(SealedFailure) in
            try seal.writingKey(cacheKey: key, doing: "seal the OTP store \(file) to the TPM")
        }
        defer { Sodium.wipe(&recordKey) }
        try OTPStoreFailure.file { () throws(FileFailure) in
            try write(accounts, recordKey: recordKey, sealed: sealedToTPM, generation: next)
        }
    }

    /// The store written under `recordKey` at `generation`, then that generation recorded.
    private func write(_ accounts: [OTPAccount], recordKey: [UInt8], sealed sealedToTPM: Bool, generation next: UInt64) throws(FileFailure)
    {
        var plaintext = OTPRecords.encode(accounts)
        defer { Sodium.wipe(&plaintext) }
        let header = Self.header(sealed: sealedToTPM, generation: next)
        let nonce = Sodium.randomBytes(Sodium.aeadNonceLength)
        let sealed = Sodium.seal(
            plaintext: plaintext, associatedData: Self.associatedData(header: header), nonce: nonce, key: recordKey)
        try FileSystem.atomicWrite(file, header + nonce + sealed)
        try generation.write(next)
    }

    /// Whether the store is held under the cache key alone while a TPM is reachable: the next locked
    /// use writes it back sealed (the migration of a store written before, or without a TPM).
    package func sealPending() throws(OTPStoreFailure) -> Bool {
        guard try !OTPStoreFailure.file({ () throws(FileFailure) in try storedHeader() }).sealed else { return false }
        return try OTPStoreFailure.sealed { () throws(SealedFailure) in try seal.reachable() } != nil
    }
}

extension OTPStore {
    /// The generation in the current store's header (0 for none, or format 1), and whether it is sealed
    /// to the TPM. Read under the lock after `load` authenticated the file; `save` never trusts the
    /// generation beyond one more than the record.
    fileprivate func storedHeader() throws(FileFailure) -> (generation: UInt64, sealed: Bool) {
        guard let bytes = try FileSystem.read(file, limit: 4 << 20, protection: .secret), bytes.count >= 16,
            Array(bytes.prefix(4)) == Self.magic, bytes[4] >= 2
        else { return (0, false) }
        var reader = RecordReader(Array(bytes[8..<16]), maximumField: 0)
        return (reader.integer(8) ?? 0, bytes[4] >= 3 && bytes[5] == 1)
    }
}

/// The accounts' plaintext: a count, then per account its kind, algorithm, digits, period, counter and
/// five length-prefixed fields (name, issuer, account, secret, AM origin; format 4, the first four before).
/// Integers big-endian.
package enum OTPRecords {
    package static let maximumField = 1024

    package static func encode(_ accounts: [OTPAccount]) -> [UInt8] {
        var bytes: [UInt8] = []
        append(&bytes, UInt64(accounts.count), width: 2)
        for account in accounts {
            bytes.append(account.kind == .totp ? 0 : 1)
            bytes.append(UInt8(OATH.Algorithm.allCases.firstIndex(of: account.algorithm) ?? 0))
            bytes.append(UInt8(account.digits))
            append(&bytes, UInt64(account.period), width: 4)
            append(&bytes, account.counter, width: 8)
            let fields = [
                Array(account.name.utf8), Array((account.issuer ?? "").utf8), Array(account.account.utf8), account.secret,
                Array((account.origin ?? "").utf8),
            ]
            for field in fields {
                append(&bytes, UInt64(field.count), width: 2)
                bytes += field
            }
        }
        return bytes
    }

    package static func append(_ bytes: inout [UInt8], _ value: UInt64, width: Int) {
        for index in (0..<width).reversed() { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index)))) }
    }

    /// nil for anything `encode` would not have written (`origins: false`: a store before format 4).
    package static func decode(_ bytes: [UInt8], origins: Bool = true) -> [OTPAccount]? {
        var reader = RecordReader(bytes, maximumField: maximumField)
        guard let count = reader.integer(2) else { return nil }
        var accounts: [OTPAccount] = []
        for _ in 0..<count {
            guard let kind = reader.integer(1), kind <= 1, let algorithm = reader.integer(1), algorithm < 3,
                let digits = reader.integer(1), OATH.digitRange.contains(Int(digits)), let period = reader.integer(4), period >= 1,
                let counter = reader.integer(8), let name = reader.text(), let issuer = reader.text(), let account = reader.text(),
                let secret = reader.field()
            else { return nil }
            var origin = ""
            if origins { guard let text = reader.text() else { return nil }; origin = text }
            accounts.append(
                OTPAccount(
                    name: name, issuer: issuer.isEmpty ? nil : issuer, account: account, kind: kind == 0 ? .totp : .hotp,
                    algorithm: OATH.Algorithm.allCases[Int(algorithm)], digits: Int(digits), period: UInt32(period), counter: counter,
                    secret: secret, origin: origin.isEmpty ? nil : origin))
        }
        return reader.atEnd ? accounts : nil
    }
}
