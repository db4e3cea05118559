import CFIDO2
import PingCrypto
import PingWebAuthn

#if canImport(Glibc)
    import Glibc
#endif

/// A FIDO2 security key reached through libfido2 (`Sources/CFIDO2/shim.h`): the one file that talks to it.
/// libfido2 is loaded with dlopen the first time a WebAuthn step looks for a key, never otherwise. The
/// device is opened for one ceremony and closed after it; libfido2 does the CTAPHID framing, the CTAP2
/// messages and the PIN protocol (its ECDH, AES and HMAC), pingcli only what goes in and comes out.
package final class FIDODevice {
    private var device: OpaquePointer?
    private let api: pingcli_fido_api

    /// Whether libfido2 (libfido2.so.1) can be loaded.
    package static var libraryAvailable: Bool { pingcli_fido_load() == 1 }

    /// The path of the first key the system lists (hidraw); nil when none is plugged or libfido2 is missing.
    package static func firstPath() -> String? {
        var path = [CChar](repeating: 0, count: 4096)
        guard pingcli_fido_first_path(&path, path.count) == 1 else { return nil }
        return String(decoding: path.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Opens the key at `path` (a hidraw device), or at the Unix socket `path` when `socket` (test builds).
    package init(path: String, socket: Bool) throws(FIDOStatus) {
        var handle: OpaquePointer?
        #if DEBUG
            let io = socket ? pingcli_fido_socket_io() : nil
        #else
            let io: UnsafePointer<fido_dev_io_t>? = nil
        #endif
        guard socket == (io != nil) else { throw FIDOStatus(FIDO_ERR_INVALID_ARGUMENT) }
        let rc = pingcli_fido_open(path, io, &handle)
        guard rc == FIDO_OK, let handle else { throw FIDOStatus(rc) }
        device = handle
        api = pingcli_fido_table().pointee
    }

    deinit { pingcli_fido_close(&device) }

    /// What the key's authenticatorGetInfo says (CTAP2 §6.4).
    package struct Info: Sendable, Equatable {
        /// COSE algorithms, in the key's order; empty when it does not list them (CTAP 2.0 keys: ES256).
        package var algorithms: [Int64]
        package var residentKeys: Bool
        /// A PIN is set (`clientPin: true`).
        package var hasPIN: Bool
        /// Built-in user verification (a fingerprint) configured (`uv: true`).
        package var hasBuiltInUV: Bool
    }

    package func info() throws(FIDOStatus) -> Info {
        // A U2F-only key (CTAP1): libfido2 registers and signs through U2F, ES256 only, no PIN, no resident keys.
        guard api.dev_is_fido2(device) else { return Info(algorithms: [-7], residentKeys: false, hasPIN: false, hasBuiltInUV: false) }
        var info = api.cbor_info_new()
        defer { api.cbor_info_free(&info) }
        try check(api.dev_get_cbor_info(device, info))
        let algorithms = (0..<api.cbor_info_algorithm_count(info)).map { Int64(api.cbor_info_algorithm_cose(info, $0)) }
        return Info(
            algorithms: algorithms, residentKeys: pingcli_fido_option(info, "rk") == 1, hasPIN: api.dev_has_pin(device),
            hasBuiltInUV: api.dev_has_uv(device))
    }

    /// The PIN retries left (clientPIN getRetries).
    package func pinRetries() throws(FIDOStatus) -> Int {
        var retries: Int32 = 0
        try check(api.dev_get_retry_count(device, &retries))
        return Int(retries)
    }

    /// authenticatorMakeCredential for `algorithm`; `pin` (NUL-free UTF-8) when user verification is
    /// by PIN, `builtInUV` to ask the key's own.
    package func makeCredential(
        _ request: CredentialCreationRequest, algorithm: Int64, pin: [UInt8]?, builtInUV: Bool
    ) throws(FIDOStatus) -> RawCredential {
        var cred = api.cred_new()
        defer { api.cred_free(&cred) }
        try check(api.cred_set_type(cred, Int32(algorithm)))
        try check(api.cred_set_clientdata_hash(cred, request.clientDataHash, request.clientDataHash.count))
        try check(api.cred_set_rp(cred, request.relyingParty.id, request.relyingParty.name))
        let user = request.user
        try check(api.cred_set_user(cred, user.id, user.id.count, user.name, user.displayName, nil))
        for id in request.excludeCredentials { try check(api.cred_exclude(cred, id, id.count)) }
        if request.residentKey { try check(api.cred_set_rk(cred, FIDO_OPT_TRUE)) }
        if builtInUV { try check(api.cred_set_uv(cred, FIDO_OPT_TRUE)) }
        try check(withPIN(pin) { api.dev_make_cred(device, cred, $0) })
        return RawCredential(
            format: api.cred_fmt(cred).map { String(cString: $0) } ?? "",
            statement: bytes(api.cred_attstmt_ptr(cred), api.cred_attstmt_len(cred)),
            authenticatorData: bytes(api.cred_authdata_raw_ptr(cred), api.cred_authdata_raw_len(cred)),
            credentialId: bytes(api.cred_id_ptr(cred), api.cred_id_len(cred)))
    }

    /// authenticatorGetAssertion (and GetNextAssertion for a discoverable credential: libfido2 collects
    /// them all). `authenticatorData` as the CBOR byte string libfido2 keeps it in.
    package func getAssertions(_ request: AssertionRequest, pin: [UInt8]?, builtInUV: Bool) throws(FIDOStatus) -> [RawAssertion] {
        var assertion = api.assert_new()
        defer { api.assert_free(&assertion) }
        try check(api.assert_set_rp(assertion, request.rpId))
        try check(api.assert_set_clientdata_hash(assertion, request.clientDataHash, request.clientDataHash.count))
        for id in request.allowCredentials { try check(api.assert_allow_cred(assertion, id, id.count)) }
        try check(api.assert_set_up(assertion, FIDO_OPT_TRUE))
        if builtInUV { try check(api.assert_set_uv(assertion, FIDO_OPT_TRUE)) }
        try check(withPIN(pin) { api.dev_get_assert(device, assertion, $0) })
        return (0..<api.assert_count(assertion)).map { index in
            RawAssertion(
                credentialId: bytes(api.assert_id_ptr(assertion, index), api.assert_id_len(assertion, index)),
                authenticatorDataCBOR: bytes(api.assert_authdata_ptr(assertion, index), api.assert_authdata_len(assertion, index)),
                signature: bytes(api.assert_sig_ptr(assertion, index), api.assert_sig_len(assertion, index)),
                userHandle: bytes(api.assert_user_id_ptr(assertion, index), api.assert_user_id_len(assertion, index)))
        }
    }

    /// Runs `body` with the PIN as a C string (NULL for none), wiped afterwards.
    private func withPIN(_ pin: [UInt8]?, _ body: (UnsafePointer<CChar>?) -> Int32) -> Int32 {
        guard let pin else { return body(nil) }
        var text = pin + [0]
        defer { Sodium.wipe(&text) }
        return text.withUnsafeBufferPointer { bytes in bytes.withMemoryRebound(to: CChar.self) { body($0.baseAddress) } }
    }

    private func check(_ rc: Int32) throws(FIDOStatus) {
        guard rc == FIDO_OK else { throw FIDOStatus(rc) }
    }

    private func bytes(_ pointer: UnsafePointer<UInt8>?, _ count: Int) -> [UInt8] {
        guard let pointer, count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: pointer, count: count))
    }
}

/// libfido2's status of a call: a CTAP2 status (CTAP2 §8.2, positive) or one of its own (negative).
package struct FIDOStatus: Error, Sendable, Equatable {
    package var code: Int32

    package init(_ code: Int32) { self.code = code }

    package static let pinInvalid = FIDOStatus(FIDO_ERR_PIN_INVALID)
    package static let pinBlocked = FIDOStatus(FIDO_ERR_PIN_BLOCKED)
    package static let pinAuthBlocked = FIDOStatus(FIDO_ERR_PIN_AUTH_BLOCKED)
    package static let pinRequired = FIDOStatus(FIDO_ERR_PIN_REQUIRED)
    /// What the key sent is not what CTAP2 says it sends.
    package static let malformed = FIDOStatus(FIDO_ERR_RX_INVALID_CBOR)

    /// The failure a WebAuthn step reports for it (PIN statuses other than these are handled by the PIN loop).
    package var failure: AuthenticatorFailure {
        switch code {
        case FIDO_ERR_CREDENTIAL_EXCLUDED: return .excluded
        case FIDO_ERR_NO_CREDENTIALS: return .noCredential
        case FIDO_ERR_KEEPALIVE_CANCEL, FIDO_ERR_ACTION_TIMEOUT, FIDO_ERR_USER_ACTION_TIMEOUT, FIDO_ERR_OPERATION_DENIED,
            FIDO_ERR_NOT_ALLOWED, FIDO_ERR_UP_REQUIRED, FIDO_ERR_USER_PRESENCE_REQUIRED, FIDO_ERR_UV_INVALID:
            return .notAllowed
        case FIDO_ERR_UNSUPPORTED_ALGORITHM, FIDO_ERR_UNSUPPORTED_OPTION, FIDO_ERR_INVALID_OPTION, FIDO_ERR_KEY_STORE_FULL,
            FIDO_ERR_UNSUPPORTED_EXTENSION, FIDO_ERR_PIN_NOT_SET:
            return .notSupported
        case FIDO_ERR_PIN_BLOCKED, FIDO_ERR_UV_BLOCKED: return .pinBlocked
        case FIDO_ERR_PIN_AUTH_BLOCKED: return .pinAuthBlocked
        case FIDO_ERR_PIN_INVALID: return .wrongPIN(retries: nil)
        default: return .device(code: Int(code))
        }
    }
}

/// What authenticatorMakeCredential gave back, as libfido2 hands it over.
package struct RawCredential: Sendable, Equatable {
    /// `fmt` ("packed", "fido-u2f", "none", "tpm", …).
    package var format: String
    /// `attStmt`, the CBOR map as the key encoded it.
    package var statement: [UInt8]
    /// `authData`, the raw bytes (not the CBOR byte string around them).
    package var authenticatorData: [UInt8]
    package var credentialId: [UInt8]
}

/// One assertion as libfido2 hands it over.
package struct RawAssertion: Sendable, Equatable {
    package var credentialId: [UInt8]
    /// libfido2 1.12 keeps authenticator data as the CBOR byte string the key sent.
    package var authenticatorDataCBOR: [UInt8]
    package var signature: [UInt8]
    /// Empty when the key sent no user.
    package var userHandle: [UInt8]
}
