import Foundation
import Testing

@testable import PingAM
@testable import PingAuthenticators
@testable import PingBase
@testable import PingCrypto
@testable import PingOAuth
@testable import PingState

#if canImport(Glibc)
    import Glibc
#endif

/// `TPM2` against a real TPM simulator (Debian's swtpm on free loopback ports, a fresh state), and the
/// TPM parts that need none: the TCTI gate, the response-code classes, the record layouts.
@Suite("TPM 2.0 keys")
struct TPMKeyTests {
    /// swtpm started for one test: its TCTI, and a stop that kills it and removes its state.
    static func startSimulator() throws -> (tcti: String, stop: () -> Void) {
        let state = NSTemporaryDirectory() + "swtpm-core-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        for _ in 0..<10 {
            let port = UInt16.random(in: 20000...60000)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/swtpm")
            process.arguments = [
                "socket", "--tpm2", "--server", "type=tcp,port=\(port),bindaddr=127.0.0.1", "--ctrl",
                "type=tcp,port=\(port + 1),bindaddr=127.0.0.1", "--tpmstate", "dir=\(state)", "--flags", "not-need-init,startup-clear",
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // A bound on a real process starting (at most 10 s), not a timed assertion.
            for _ in 0..<500 where process.isRunning {
                if (try? TPM2.open(.system(tcti: "swtpm:host=127.0.0.1,port=\(port)"))) != nil {
                    return (
                        "swtpm:host=127.0.0.1,port=\(port)",
                        {
                            kill(process.processIdentifier, SIGKILL)
                            process.waitUntilExit()
                            try? FileManager.default.removeItem(atPath: state)
                        }
                    )
                }
                usleep(20_000)
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        throw TPMTestError.noSimulator
    }

    enum TPMTestError: Error { case noSimulator }

    static var simulatorAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/swtpm") && dlopen("libtss2-esys.so.0", RTLD_LAZY) != nil
    }

    /// A session with a swtpm started for one test, and the stop that ends it.
    static func simulatedTPM() throws -> (session: TPM2.Session, stop: () -> Void) {
        let (tcti, stop) = try startSimulator()
        do { return (try #require(try TPM2.open(.system(tcti: tcti))), stop) } catch {
            stop()
            throw error
        }
    }

    func verify(_ jws: String, _ key: TPMDeviceKey) throws -> JWSAlgorithm {
        let members = key.publicMembers.map { ($0.name, $0.value) } + [("alg", key.algorithm.rawValue), ("kid", "kid-1")]
        let set = try JSONSerialization.data(withJSONObject: ["keys": [Dictionary(uniqueKeysWithValues: members)]])
        return try IDTokenSignature.verify(jws, listed: ["ES256", "RS512"], keys: try JWKSet.parse(Array(set)), clientSecret: nil)
    }

    @Test(
        "tpm-keys-sign: ES256 (P-256, R || S from TPMS_SIGNATURE_ECDSA) and RS512 (RSA 2048, SHA-512) keys made in swtpm sign JWSs that verify; a change does not",
        .swtpm)
    func signs() throws {
        let (session, stop) = try Self.simulatedTPM()
        defer { stop() }
        #expect(try session.keyType() == .p256, "swtpm has P-256: ES256 is chosen")
        for type in [TPM2.KeyType.p256, .rsa2048] {
            let blob = try session.createSigningKey(type, pin: [])
            let key = try TPMDeviceKey(session: session, blob: blob, pin: [])
            #expect(key.algorithm == (type == .p256 ? .es256 : .rs512))
            let jws = try DeviceJWS.sign(
                key: key, kid: "kid-1", userID: "ada", issuer: "pingcli-test", challenge: "c-1", now: 1_700_000_000, timeout: 60)
            #expect(try verify(jws, key).rawValue == key.algorithm.rawValue)
            if type == .p256 { #expect(try #require(Base64URL.decode(jws.split(separator: ".")[2])).count == 64, "R || S, 32 bytes each") }
            var tampered = Array(jws.utf8)
            tampered[10] = tampered[10] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            #expect(throws: (any Error).self) { try verify(String(decoding: tampered, as: UTF8.self), key) }
        }
    }

    @Test(
        "tpm-key-foreign: a key blob from one TPM does not load in another; tpm-keys-pin: a wrong PIN is TPM_RC_AUTH_FAIL, counted, and the key still signs with the right one",
        .swtpm)
    func foreignAndPIN() throws {
        let (session, stop) = try Self.simulatedTPM()
        defer { stop() }
        let (other, stopOther) = try Self.simulatedTPM()
        defer { stopOther() }
        let blob = try session.createSigningKey(.p256, pin: Array("4711".utf8))
        let digest = Sodium.sha256(Array("input".utf8))
        #expect(throws: TPM2.Failure.foreignBlob) { try other.sign(blob: blob, pin: Array("4711".utf8), digest: digest) }
        #expect(throws: TPM2.Failure.authorizationFailed(failures: 1, maximum: 3)) {
            try session.sign(blob: blob, pin: Array("1111".utf8), digest: digest)
        }
        #expect(try session.sign(blob: blob, pin: Array("4711".utf8), digest: digest).count == 64)
        let sealed = try session.seal(Array(repeating: 7, count: 32))
        #expect(try session.unseal(sealed) == Array(repeating: 7, count: 32))
        #expect(throws: TPM2.Failure.foreignBlob) { try other.unseal(sealed) }
    }

    @Test("tpm-unreachable: a TCTI that does not answer fails to open; no TCTI and no TPM device is no TPM at all, not an error")
    func unreachable() throws {
        let port = UInt16.random(in: 20000...60000)
        #expect {
            _ = try TPM2.open(.system(tcti: "swtpm:host=127.0.0.1,port=\(port)"))
        } throws: { error in
            guard case .unreachable = error as? TPM2.Failure else { return (error as? TPM2.Failure) == .libraryMissing }
            return true
        }
        #expect(try TPM2.open(.absent) == nil)
        if !TPM2.Access.devices.contains(where: { access($0, F_OK) == 0 }) { #expect(try TPM2.open(.system(tcti: nil)) == nil) }
    }

    @Test("tpm-tcti-gate: TPM2TOOLS_TCTI must be printable ASCII of at most 256 bytes; empty means the default")
    func tctiGate() throws {
        #expect(try TPM2.Access.system(tcti: "swtpm:host=127.0.0.1,port=2321").checked() == .system(tcti: "swtpm:host=127.0.0.1,port=2321"))
        #expect(try TPM2.Access.system(tcti: "").checked() == .system(tcti: nil))
        for bad in ["swtpm:host=a b", "device:/dev/tpm0\n", String(repeating: "a", count: 257), "swtpm:\u{7f}"] {
            #expect(throws: SealedFailure.self) { try TPM2.Access.system(tcti: bad).checked() }
            do {
                _ = try TPM2.Access.system(tcti: bad).checked()
            } catch {
                #expect(error.rule == .tpmTctiGate)
            }
        }
    }

    @Test("tpm-response-codes: TPM_RC_AUTH_FAIL and TPM_RC_BAD_AUTH with any session number are a wrong PIN; TPM_RC_LOCKOUT is the lockout")
    func responseCodes() {
        #expect(TPM2.Session.isAuthorizationFailure(0x98E))
        #expect(TPM2.Session.isAuthorizationFailure(0x9A2))
        #expect(!TPM2.Session.isAuthorizationFailure(0x921))
        #expect(!TPM2.Session.isAuthorizationFailure(0x7_098E), "another layer's code is not the TPM's")
        #expect(TPM2.Session.isLockout(0x921))
        #expect(!TPM2.Session.isLockout(0x98E))
    }

    @Test(
        "device-record-layouts: a TPM record round-trips with its storage; a layout-1 record reads as software; a TPM record with a PIN salt is refused"
    )
    func recordLayouts() throws {
        var record = DeviceKeyRecord(
            keyID: DeviceKeyStore.newKeyID(), userID: "u", username: "ada", origin: "https://am.example", realm: "/alpha",
            algorithm: .es256, authentication: .applicationPIN, created: 1_700_000_000, pinSalt: [], sealedKey: [1, 2, 3])
        record.storage = .tpm
        let decoded = try #require(DeviceKeyRecords.decode(DeviceKeyRecords.encode(record)))
        #expect(decoded == record && decoded.hasPIN && decoded.place.contains("TPM"))
        var layoutOne = DeviceKeyRecords.encode(record)
        layoutOne[0] = 1
        layoutOne.remove(at: 3)
        let old = try #require(DeviceKeyRecords.decode(layoutOne))
        #expect(old.storage == .software && !old.hasPIN)
        record.pinSalt = Array(repeating: 1, count: Sodium.passwordSaltLength)
        #expect(DeviceKeyRecords.decode(DeviceKeyRecords.encode(record)) == nil)
    }
}

extension Trait where Self == ConditionTrait {
    /// A test against the TPM simulator: only where swtpm and tpm2-tss are installed (make deps).
    static var swtpm: Self { .enabled(if: TPMKeyTests.simulatorAvailable, "needs swtpm and tpm2-tss (make deps)") }
}
