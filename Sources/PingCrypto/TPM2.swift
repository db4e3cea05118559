import CTPM
import PingBase

#if canImport(Glibc)
    import Glibc
#endif

/// A TPM 2.0 reached through tpm2-tss's ESYS (`Sources/CTPM/shim.h`): the one file that talks to it.
/// libtss2-esys, libtss2-tctildr and libtss2-mu are loaded with dlopen the first time a device step or
/// a TPM-sealed secret opens the TPM, never otherwise.
///
/// Keys are created under the owner hierarchy's storage primary key (the TCG's ECC P-256 template,
/// re-derived from the TPM's owner seed on every use, so nothing of it is kept); only the TPM's wrapped
/// blobs (`TPM2B_PUBLIC` then `TPM2B_PRIVATE`, marshalled) leave the chip, and only that TPM loads them.
package enum TPM2 {
    /// Which TPM pingcli uses: `TPM2TOOLS_TCTI` as tpm2-tools reads it (`swtpm:host=127.0.0.1,port=2321`,
    /// `device:/dev/tpmrm0`), else the loader's default when the kernel offers a TPM device.
    package enum Access: Sendable, Equatable {
        /// No TPM is looked for (the in-process tests).
        case absent
        case system(tcti: String?)
        /// `TPM2TOOLS_TCTI` of this environment, read only when a TPM is needed (`checked()`), so no
        /// other command pays for it.
        case environment(Environment)

        package static func == (lhs: Access, rhs: Access) -> Bool {
            switch (lhs, rhs) {
            case (.absent, .absent): return true
            case (.system(let left), .system(let right)): return left == right
            default: return false
            }
        }

        /// The kernel's TPM devices: with neither (or neither this user may open), there is no default TPM.
        package static let devices = ["/dev/tpmrm0", "/dev/tpm0"]

        /// The TCTI to open: the configured one, nil for the loader's default; `.none` when there is no
        /// TPM at all (nothing configured, and no device this user may read and write: `/dev/tpmrm0` is
        /// `tss`'s group on Debian, so a user outside it has no TPM rather than a failing one).
        package var tcti: String?? {
            switch self {
            case .absent, .environment: return .none
            case .system(let tcti?): return .some(tcti)
            case .system(nil): return Self.devices.contains { access($0, R_OK | W_OK) == 0 } ? .some(nil) : .none
            }
        }
    }

    /// The TCTI configuration's gate: printable ASCII, at most 256 bytes (`name:key=value,…`).
    package static func checkTCTI(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return (1...256).contains(bytes.count) && bytes.allSatisfy { (0x21...0x7e).contains($0) }
    }

    package enum Failure: Error, Sendable, Equatable {
        /// libtss2-esys, -tctildr or -mu cannot be loaded.
        case libraryMissing
        /// The TCTI did not open, or the TPM did not answer through it.
        case unreachable(code: UInt32)
        /// The authorisation value (the PIN) was wrong; the TPM counted `failures` of `maximum`.
        case authorizationFailed(failures: UInt32?, maximum: UInt32?)
        /// The TPM refuses authorisations until its dictionary-attack lockout ends (one failure is
        /// forgiven every `interval` seconds).
        case lockout(interval: UInt32?)
        /// A blob this TPM does not load: made by another TPM, or under another owner seed.
        case foreignBlob
        /// A blob that is not what `createSigningKey` or `seal` wrote.
        case damagedBlob
        /// The TPM has neither ECC P-256 with SHA-256 nor RSA 2048 with SHA-512.
        case unsupported
        /// Any other failure: the operation and tpm2-tss's response code.
        case failed(operation: String, code: UInt32)
    }

    /// The algorithms a TPM signing key uses.
    package enum KeyType: Sendable, Equatable {
        /// ECC NIST P-256, ECDSA with SHA-256 (JWS ES256).
        case p256
        /// RSA 2048, RSASSA-PKCS1-v1_5 with SHA-512 (JWS RS512).
        case rsa2048
    }

    /// Opens the TPM `access` names; nil when there is none (nothing configured and no device).
    package static func open(_ access: Access) throws(Failure) -> Session? {
        guard case .some(let tcti) = access.tcti else { return nil }
        let session = Session()
        let rc: TSS2_RC =
            if let tcti { pingcli_tpm_open(tcti, &session.connection) } else { pingcli_tpm_open(nil, &session.connection) }
        guard rc == TSS2_RC_SUCCESS else {
            session.opened = false
            throw rc == PINGCLI_TPM_RC_UNAVAILABLE ? .libraryMissing : .unreachable(code: rc)
        }
        return session
    }

    /// One connection to the TPM; closed when released.
    package final class Session {
        fileprivate var connection = pingcli_tpm_connection()
        fileprivate var opened = true

        fileprivate init() {}

        deinit { if opened { pingcli_tpm_close(&connection) } }

        /// The key type this TPM supports, P-256 first (every PC Client TPM has it; many lack SHA-512);
        /// only `preferred` when one is asked for.
        package func keyType(preferring preferred: KeyType? = nil) throws(Failure) -> KeyType {
            for type in preferred.map({ [$0] }) ?? [.p256, .rsa2048] where try supports(type) { return type }
            throw .unsupported
        }

        /// Whether this TPM has `type`: ECC NIST P-256, or RSA and SHA-512.
        package func supports(_ type: KeyType) throws(Failure) -> Bool {
            var has: Int32 = 0
            if type == .p256 {
                try check(pingcli_tpm_has_p256(&connection, &has), "TPM2_GetCapability")
                return has != 0
            }
            var sha512: Int32 = 0
            try check(pingcli_tpm_has_algorithm(&connection, TPM2_ALG_ID(TPM2_ALG_RSA), &has), "TPM2_GetCapability")
            try check(pingcli_tpm_has_algorithm(&connection, TPM2_ALG_ID(TPM2_ALG_SHA512), &sha512), "TPM2_GetCapability")
            return has != 0 && sha512 != 0
        }

        /// A new signing key under the storage primary; `pin` (empty: none) its authorisation value,
        /// counted against the TPM's dictionary-attack lockout when not empty. The wrapped blob.
        package func createSigningKey(_ type: KeyType, pin: [UInt8]) throws(Failure) -> [UInt8] {
            let primary = try storagePrimary()
            defer { pingcli_tpm_flush(&connection, primary) }
            var blob = [UInt8](repeating: 0, count: 4096)
            var length = 0
            let rc = pin.withUnsafeBufferPointer { auth in
                pingcli_tpm_create_signing_key(
                    &connection, primary, type == .rsa2048 ? 1 : 0, pin.isEmpty ? 0 : 1, auth.baseAddress, auth.count, &blob, blob.count,
                    &length)
            }
            try check(rc, "TPM2_Create")
            return Array(blob.prefix(length))
        }

        /// `digest` (SHA-256 for P-256, SHA-512 for RSA) signed by the key in `blob` with `pin`: R || S
        /// (32 bytes each) or the RSA signature.
        package func sign(blob: [UInt8], pin: [UInt8], digest: [UInt8]) throws(Failure) -> [UInt8] {
            let handle = try load(blob)
            defer { pingcli_tpm_flush(&connection, handle) }
            var signature = [UInt8](repeating: 0, count: 512)
            var length = 0
            let rc = pin.withUnsafeBufferPointer { auth in
                pingcli_tpm_sign(
                    &connection, handle, auth.baseAddress, auth.count, digest, digest.count, &signature, signature.count, &length)
            }
            if Self.isAuthorizationFailure(rc) {
                throw .authorizationFailed(
                    failures: property(pingcli_tpm_pt_lockout_counter), maximum: property(pingcli_tpm_pt_max_auth_fail))
            }
            if Self.isLockout(rc) { throw .lockout(interval: property(pingcli_tpm_pt_lockout_interval)) }
            try check(rc, "TPM2_Sign")
            return Array(signature.prefix(length))
        }

        /// The TPM's dictionary-attack counter and limit (TPM2_GetCapability: `TPM2_PT_LOCKOUT_COUNTER`,
        /// `TPM2_PT_MAX_AUTH_FAIL`): the failed authorisations counted, and the count that locks the TPM
        /// out (every key of every program); nil when the TPM does not say.
        package func lockoutCounter() -> (failures: UInt32, maximum: UInt32)? {
            guard let failures = property(pingcli_tpm_pt_lockout_counter), let maximum = property(pingcli_tpm_pt_max_auth_fail) else {
                return nil
            }
            return (failures, maximum)
        }

        /// `data` (at most 128 bytes) sealed in a data object only this TPM unseals: the wrapped blob.
        package func seal(_ data: [UInt8]) throws(Failure) -> [UInt8] {
            let primary = try storagePrimary()
            defer { pingcli_tpm_flush(&connection, primary) }
            var blob = [UInt8](repeating: 0, count: 4096)
            var length = 0
            try check(pingcli_tpm_seal(&connection, primary, data, data.count, &blob, blob.count, &length), "TPM2_Create")
            return Array(blob.prefix(length))
        }

        /// What `seal` sealed in `blob`.
        package func unseal(_ blob: [UInt8]) throws(Failure) -> [UInt8] {
            let handle = try load(blob)
            defer { pingcli_tpm_flush(&connection, handle) }
            var data = [UInt8](repeating: 0, count: 128)
            defer { Sodium.wipe(&data) }
            var length = 0
            try check(pingcli_tpm_unseal(&connection, handle, &data, data.count, &length), "TPM2_Unseal")
            return Array(data.prefix(length))
        }

        private func storagePrimary() throws(Failure) -> ESYS_TR {
            var handle = ESYS_TR(ESYS_TR_NONE)
            try check(pingcli_tpm_primary(&connection, &handle), "TPM2_CreatePrimary")
            return handle
        }

        private func load(_ blob: [UInt8]) throws(Failure) -> ESYS_TR {
            let primary = try storagePrimary()
            defer { pingcli_tpm_flush(&connection, primary) }
            var handle = ESYS_TR(ESYS_TR_NONE)
            let rc = pingcli_tpm_load_object(&connection, primary, blob, blob.count, &handle)
            if rc == PINGCLI_TPM_RC_BLOB { throw .damagedBlob }
            // TPM_RC_INTEGRITY, TPM_RC_SIZE, TPM_RC_BINDING, TPM_RC_KEY…: the blob is not this TPM's.
            if rc != TSS2_RC_SUCCESS && rc & 0xFFFF_0000 == 0 && rc & 0x80 != 0 { throw .foreignBlob }
            try check(rc, "TPM2_Load")
            return handle
        }

        private func property(_ name: UInt32) -> UInt32? {
            var value: UInt32 = 0
            return pingcli_tpm_property(&connection, TPM2_PT(name), &value) == TSS2_RC_SUCCESS ? value : nil
        }

        private func check(_ rc: TSS2_RC, _ operation: String) throws(Failure) {
            guard rc != TSS2_RC_SUCCESS else { return }
            if Self.isLockout(rc) { throw .lockout(interval: property(pingcli_tpm_pt_lockout_interval)) }
            // The TCTI's own layer (10): the TPM stopped answering.
            if rc >> 16 == 10 { throw .unreachable(code: rc) }
            throw .failed(operation: operation, code: rc)
        }

        /// TPM_RC_AUTH_FAIL (a key counted by the lockout) or TPM_RC_BAD_AUTH (one that is not), format 1
        /// with any handle, session or parameter number.
        package static func isAuthorizationFailure(_ rc: TSS2_RC) -> Bool {
            rc & 0xFFFF_0000 == 0 && rc & 0x80 != 0 && [0x8E, 0xA2].contains(rc & 0xBF)
        }

        /// TPM_RC_LOCKOUT, a warning (format 0).
        package static func isLockout(_ rc: TSS2_RC) -> Bool { rc & 0xFFFF_0000 == 0 && rc & 0xFFF == 0x921 }
    }

    /// The public key in `blob`: ECC `x` and `y` (32 bytes each) or RSA `n` and `e`.
    package static func publicKey(_ blob: [UInt8]) throws(Failure) -> (type: KeyType, first: [UInt8], second: [UInt8]) {
        guard pingcli_tpm_load() == 1 else { throw .libraryMissing }
        var first = [UInt8](repeating: 0, count: 512)
        var second = [UInt8](repeating: 0, count: 512)
        var (firstLength, secondLength) = (0, 0)
        var rsa: Int32 = 0
        guard pingcli_tpm_public_key(blob, blob.count, &rsa, &first, &firstLength, &second, &secondLength) == TSS2_RC_SUCCESS else {
            throw .damagedBlob
        }
        return (rsa != 0 ? .rsa2048 : .p256, Array(first.prefix(firstLength)), Array(second.prefix(secondLength)))
    }
}
