import FIDOTestAuthenticator
import Foundation
import PingCrypto
import PingWebAuthn
import Testing

@testable import PingFIDO2

/// The security key through libfido2 itself, against the tests' software authenticator on a socket: the
/// CTAPHID framing, CTAP2 messages and PIN protocol are libfido2's, the answers a CTAP2 key's.
@Suite(.enabled(if: SecurityKey.libraryAvailable, "libfido2 (libfido2-1) is not installed"))
struct SecurityKeyTests {
    typealias Samples = WebAuthnSamples

    @Test("ES256 registration: a packed self attestation whose signature the credential's COSE key verifies; sign-in signs with it")
    func registerAndSignIn() throws {
        let plugged = try PluggedSoftwareKey()
        let person = ScriptedInteraction()
        let created = try plugged.key.makeCredential(Samples.creation(), interaction: person)
        #expect(created.attachment == .crossPlatform && person.touches == 1 && person.askedRetries.isEmpty)
        let (fmt, statement, authData) = try Samples.parts(created.attestationObject)
        #expect(fmt == "packed" && statement?["alg"]?.intValue == -7 && statement?["x5c"] == nil)
        #expect(Array(authData.prefix(32)) == Sodium.sha256(Array(Samples.rp.id.utf8)))
        #expect(authData[32] & 0x41 == 0x41, "user present, attested credential data")
        #expect(Array(authData[37..<53]) == SoftwareAuthenticator.aaguid)
        #expect(Array(authData[55..<(55 + created.credentialId.count)]) == created.credentialId && created.credentialId.count == 32)
        let spki = try Samples.publicKey(authData: authData)
        let signature = try #require(statement?["sig"]?.bytesValue)
        #expect(Samples.verifies(spki: spki, message: authData + Samples.clientDataHash, signature: signature))
        #expect(!Samples.verifies(spki: spki, message: authData + Sodium.sha256([1]), signature: signature), "a check that can fail")

        let request = Samples.assertion(allow: [created.credentialId])
        let assertion = try plugged.key.getAssertion(request, interaction: person)
        #expect(assertion.credentialId == created.credentialId && assertion.userHandle == nil)
        #expect(assertion.authenticatorData.count == 37 && assertion.authenticatorData[32] & 0x01 == 1)
        #expect(Samples.verifies(spki: spki, message: assertion.authenticatorData + request.clientDataHash, signature: assertion.signature))
        let again = try plugged.key.getAssertion(request, interaction: person)
        let counter = { (data: [UInt8]) in data[33..<37].reduce(0) { $0 << 8 | UInt32($1) } }
        #expect(counter(again.authenticatorData) > counter(assertion.authenticatorData), "the signature counter moves")
        #expect(plugged.authenticator.seen.commands.filter { $0 == 0x06 }.isEmpty, "no PIN protocol without a PIN")
    }

    @Test("PIN set: asked once without echo, sent through the PIN protocol, the credential user-verified")
    func rightPIN() throws {
        let plugged = try PluggedSoftwareKey(.init(pin: "4711"))
        let person = ScriptedInteraction(pins: ["4711", "4711"])
        let created = try plugged.key.makeCredential(Samples.creation(userVerification: .required), interaction: person)
        #expect(person.askedRetries == [nil] && person.touches == 1)
        let (_, _, authData) = try Samples.parts(created.attestationObject)
        #expect(authData[32] & 0x04 == 0x04, "user verified")
        #expect(plugged.authenticator.seen.pinAttempts == 1 && plugged.authenticator.seen.lastHadPINAuth)
        let assertion = try plugged.key.getAssertion(Samples.assertion(allow: [created.credentialId]), interaction: person)
        #expect(assertion.authenticatorData[32] & 0x05 == 0x05 && person.askedRetries == [nil, nil])
    }

    @Test("a key that wants its PIN for every registration (CTAP 2.0) gets it even when the step discourages verification")
    func pinRequiredByTheKey() throws {
        let plugged = try PluggedSoftwareKey(.init(pin: "4711"))
        let person = ScriptedInteraction(pins: ["4711"])
        _ = try plugged.key.makeCredential(Samples.creation(userVerification: .discouraged), interaction: person)
        #expect(person.askedRetries == [nil] && person.touches == 1 && plugged.authenticator.seen.pinAttempts == 1)
        let assertion = try plugged.key.getAssertion(
            Samples.assertion(allow: [plugged.authenticator.held[0].id], userVerification: .discouraged), interaction: person)
        #expect(assertion.authenticatorData[32] & 0x04 == 0, "no PIN asked for a sign-in that discourages it")
    }

    @Test("libfido2's statuses as the step's failures")
    func statusMapping() {
        let cases: [(Int32, AuthenticatorFailure)] = [
            (0x19, .excluded), (0x2e, .noCredential), (0x27, .notAllowed), (0x2f, .notAllowed), (0x3a, .notAllowed), (0x2d, .notAllowed),
            (0x26, .notSupported), (0x2b, .notSupported), (0x32, .pinBlocked), (0x34, .pinAuthBlocked), (0x31, .wrongPIN(retries: nil)),
            (-1, .device(code: -1)), (0x7f, .device(code: 0x7f)),
        ]
        for (code, failure) in cases { #expect(FIDOStatus(code).failure == failure, "\(code)") }
    }

    @Test("PIN protocol one and getPinToken (a CTAP 2.0 key) work too")
    func pinProtocolOne() throws {
        var configuration = SoftwareAuthenticator.Configuration(pin: "123456")
        configuration.pinProtocols = [1]
        configuration.permissions = false
        let plugged = try PluggedSoftwareKey(configuration)
        let created = try plugged.key.makeCredential(Samples.creation(), interaction: ScriptedInteraction(pins: ["123456"]))
        let (_, _, authData) = try Samples.parts(created.attestationObject)
        #expect(authData[32] & 0x04 == 0x04 && plugged.authenticator.seen.pinAttempts == 1)
    }

    @Test("wrong PIN then right: asked again with the retries the key reports; the right one resets them")
    func wrongThenRight() throws {
        let plugged = try PluggedSoftwareKey(.init(pin: "4711"))
        let person = ScriptedInteraction(pins: ["0000", "4711"])
        _ = try plugged.key.makeCredential(Samples.creation(), interaction: person)
        #expect(person.askedRetries == [nil, 7])
        #expect(plugged.authenticator.seen.pinAttempts == 2 && plugged.authenticator.pinRetriesLeft == 8)
    }

    @Test("three wrong PINs in a row: the key wants replugging (pinAuthBlocked, not pinBlocked); its retries are not used up")
    func threeWrong() throws {
        let plugged = try PluggedSoftwareKey(.init(pin: "4711"))
        let person = ScriptedInteraction(pins: ["0000", "1111", "2222", "4711"])
        #expect(throws: AuthenticatorFailure.pinAuthBlocked) { try plugged.key.makeCredential(Samples.creation(), interaction: person) }
        #expect(person.askedRetries == [nil, 7, 6] && plugged.authenticator.pinRetriesLeft == 5)
        plugged.authenticator.replug()
        let later = ScriptedInteraction(pins: ["4711"])
        _ = try plugged.key.makeCredential(Samples.creation(), interaction: later)
        #expect(later.askedRetries == [5], "the count left from before is shown on the first ask")
    }

    @Test("the last try is never spent: at 2 left a wrong PIN stops with pinBlocked, and at 1 left nothing is asked")
    func lastTryKept() throws {
        var configuration = SoftwareAuthenticator.Configuration(pin: "4711")
        configuration.pinRetries = 2
        let plugged = try PluggedSoftwareKey(configuration)
        let person = ScriptedInteraction(pins: ["0000", "4711"])
        #expect(throws: AuthenticatorFailure.pinBlocked) { try plugged.key.makeCredential(Samples.creation(), interaction: person) }
        #expect(person.askedRetries == [2] && plugged.authenticator.pinRetriesLeft == 1)
        let next = ScriptedInteraction(pins: ["4711"])
        #expect(throws: AuthenticatorFailure.pinBlocked) { try plugged.key.makeCredential(Samples.creation(), interaction: next) }
        #expect(next.askedRetries.isEmpty && plugged.authenticator.pinRetriesLeft == 1 && plugged.authenticator.seen.pinAttempts == 1)
    }

    @Test("a declined PIN is final (notAllowed, nothing sent); a PIN under 4 bytes is not sent, it cannot be right")
    func declinedAndShortPIN() throws {
        let plugged = try PluggedSoftwareKey(.init(pin: "4711"))
        let declined = ScriptedInteraction(pins: [nil])
        #expect(throws: AuthenticatorFailure.notAllowed) { try plugged.key.makeCredential(Samples.creation(), interaction: declined) }
        #expect(plugged.authenticator.seen.pinAttempts == 0 && declined.touches == 0)
        let short = ScriptedInteraction(pins: ["12", "4711"])
        _ = try plugged.key.makeCredential(Samples.creation(), interaction: short)
        #expect(short.askedRetries == [nil, 8] && plugged.authenticator.seen.pinAttempts == 1)
        let endless = ScriptedInteraction(pins: ["1", "2", "3", "4711"])
        #expect(throws: AuthenticatorFailure.wrongPIN(retries: 8)) {
            try plugged.key.makeCredential(Samples.creation(), interaction: endless)
        }
        #expect(endless.askedRetries.count == 3, "three asks per ceremony")
    }

    @Test("resident keys: a discoverable assertion gives the user handles, newest first")
    func discoverable() throws {
        let plugged = try PluggedSoftwareKey()
        let person = ScriptedInteraction()
        let alice = try plugged.key.makeCredential(Samples.creation(user: "alice", residentKey: true), interaction: person)
        let bob = try plugged.key.makeCredential(Samples.creation(user: "bob", residentKey: true), interaction: person)
        _ = try plugged.key.makeCredential(Samples.creation(user: "carol"), interaction: person)
        #expect(plugged.authenticator.held.map(\.resident) == [true, true, false])
        let all = try plugged.key.getAssertions(Samples.assertion(allow: []), interaction: person)
        #expect(all.map(\.credentialId) == [bob.credentialId, alice.credentialId])
        #expect(all.map(\.userHandle) == [Array("id-bob".utf8), Array("id-alice".utf8)])
        let first = try plugged.key.getAssertion(Samples.assertion(allow: []), interaction: person)
        #expect(first.userHandle == Array("id-bob".utf8))
        let (_, _, authData) = try Samples.parts(bob.attestationObject)
        #expect(
            Samples.verifies(
                spki: try Samples.publicKey(authData: authData), message: first.authenticatorData + Sodium.sha256(Array("get".utf8)),
                signature: first.signature))
    }

    @Test("refusals: excluded credential, no credential, no touch, no shared algorithm, UV required without a PIN, no key")
    func refusals() throws {
        let plugged = try PluggedSoftwareKey()
        let person = ScriptedInteraction()
        let created = try plugged.key.makeCredential(Samples.creation(), interaction: person)
        #expect(throws: AuthenticatorFailure.excluded) {
            try plugged.key.makeCredential(Samples.creation(exclude: [[1, 2, 3], created.credentialId]), interaction: person)
        }
        #expect(plugged.authenticator.held.count == 1)
        #expect(throws: AuthenticatorFailure.noCredential) {
            try plugged.key.getAssertion(Samples.assertion(allow: [[9, 9, 9]]), interaction: person)
        }
        #expect(throws: AuthenticatorFailure.notSupported) {
            try plugged.key.makeCredential(Samples.creation(algorithms: [.rs256, .eddsa]), interaction: person)
        }
        #expect(throws: AuthenticatorFailure.notSupported) {
            try plugged.key.makeCredential(Samples.creation(userVerification: .required), interaction: person)
        }
        var refusing = SoftwareAuthenticator.Configuration()
        refusing.refuseTouch = true
        let untouched = try PluggedSoftwareKey(refusing)
        #expect(throws: AuthenticatorFailure.notAllowed) { try untouched.key.makeCredential(Samples.creation(), interaction: person) }
        #expect(throws: AuthenticatorFailure.absent) {
            try SecurityKey(testSocket: plugged.directory + "/none.sock").makeCredential(Samples.creation(), interaction: person)
        }
    }

    @Test("connected(): PINGCLI_TEST_FIDO_SOCKET in test builds; without it and without a hidraw key, none")
    func connected() throws {
        let plugged = try PluggedSoftwareKey()
        let key = try #require(SecurityKey.connected(environment: ["PINGCLI_TEST_FIDO_SOCKET": plugged.server.path]))
        #expect(key.path == plugged.server.path && key.attachment == .crossPlatform)
        #expect(SecurityKey.connected(environment: ["PINGCLI_TEST_FIDO_SOCKET": "relative.sock"])?.path != "relative.sock")
        let hidraw = (try? FileManager.default.contentsOfDirectory(atPath: "/dev"))?.contains { $0.hasPrefix("hidraw") } ?? false
        if !hidraw { #expect(SecurityKey.connected(environment: [:]) == nil) }
    }

    @Test(
        "a key with ES256 and EdDSA: the step's first choice that the key has (EdDSA), through libfido2's getInfo; the Ed25519 signatures verify"
    )
    func eddsaChosen() throws {
        var configuration = SoftwareAuthenticator.Configuration()
        configuration.algorithms = [-7, -8]
        let plugged = try PluggedSoftwareKey(configuration)
        let person = ScriptedInteraction()
        let created = try plugged.key.makeCredential(Samples.creation(algorithms: [.rs256, .eddsa, .es256]), interaction: person)
        let (fmt, statement, authData) = try Samples.parts(created.attestationObject)
        #expect(fmt == "packed" && statement?["alg"]?.intValue == -8 && plugged.authenticator.held.map(\.algorithm) == [-8])
        let idLength = Int(authData[53]) << 8 | Int(authData[54])
        let (cose, _) = try CBOR.decodePrefix(authData[(55 + idLength)...])
        let x = try #require(cose[intKey: -2]?.bytesValue)
        #expect(cose[intKey: 1]?.intValue == 1 && cose[intKey: 3]?.intValue == -8 && cose[intKey: -1]?.intValue == 6 && x.count == 32)
        let signature = try #require(statement?["sig"]?.bytesValue)
        #expect(Sodium.verifyEd25519(signature, of: authData + Samples.clientDataHash, publicKey: x))
        let request = Samples.assertion(allow: [created.credentialId])
        let assertion = try plugged.key.getAssertion(request, interaction: person)
        #expect(Sodium.verifyEd25519(assertion.signature, of: assertion.authenticatorData + request.clientDataHash, publicKey: x))
        let es256 = try plugged.key.makeCredential(Samples.creation(algorithms: [.es256, .eddsa]), interaction: person)
        #expect(try Samples.parts(es256.attestationObject).statement?["alg"]?.intValue == -7)
    }

    @Test("the step's algorithm order decides among those the key lists; a key listing none has ES256")
    func algorithmChoice() {
        #expect(SecurityKey.algorithm([.eddsa, .es256], supported: [-7, -8]) == .eddsa)
        #expect(SecurityKey.algorithm([.rs256, .es256], supported: [-7]) == .es256)
        #expect(SecurityKey.algorithm([.rs256, .es256], supported: []) == .es256)
        #expect(SecurityKey.algorithm([.rs256], supported: []) == nil)
    }
}
