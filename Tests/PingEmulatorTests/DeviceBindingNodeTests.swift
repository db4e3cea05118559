import EmulatorHTTP
import Foundation
import Testing

@testable import PingEmulator

/// The emulator's Device Binding, Device Signing Verifier and OATH Registration nodes, driven as a client
/// following the reference would, with keys made here (not pingcli's code): a JWS that the key in its
/// header verifies is bound; a forged signature, another challenge, an expired JWS or a key that was
/// never bound is "Login failure".
@Suite("emulator: PingAM device binding and OATH nodes")
struct DeviceBindingNodeTests {
    /// A binding (or, with `bound`, a signing) JWS for demo over `challenge`, signed by `signer`.
    func jws(
        signer: SigningKey, headerKey: SigningKey? = nil, kid: String, challenge: String, exp: Double = AMDriver.startTime + 60,
        bind: Bool = true
    ) -> String {
        var header: [String: EmulatorJSON] = ["alg": "ES256", "kid": .string(kid)]
        if bind { header["jwk"] = (headerKey ?? signer).jwk }
        var claims: [String: EmulatorJSON] = [
            "sub": .string(User.demo.sub), "iss": "pingcli-test", "challenge": .string(challenge),
            "iat": .number(AMDriver.startTime), "nbf": .number(AMDriver.startTime), "exp": .number(exp),
        ]
        if bind { claims["platform"] = "linux" }
        let input = JWS.signingInput(header, claims)
        return input + "." + Base64URL.encode(signer.signature(Array(input.utf8)))
    }

    /// Signs in on `tree` as demo and returns the device step.
    func deviceStep(_ driver: AMDriver, _ tree: String) -> EmulatorJSON {
        driver.answer(driver.start(tree).json, ["IDToken1": "demo", "IDToken2": "demo"]).json
    }

    @Test(
        "emulator-device-binding: the DeviceBindingCallback's outputs and inputs are the reference's; a JWS its header key verifies binds")
    func bind() throws {
        let driver = try AMDriver()
        let step = deviceStep(driver, "Device Binding")
        #expect(AMDriver.types(step) == ["DeviceBindingCallback"])
        for name in ["userId", "username", "authenticationType", "challenge", "title", "subtitle", "description", "timeout"] {
            #expect(AMDriver.output(step, 0, name) != nil, "\(name)")
        }
        #expect(AMDriver.inputNames(step, 0) == ["IDToken1jws", "IDToken1deviceName", "IDToken1deviceId", "IDToken1clientError"])
        let challenge = try #require(AMDriver.output(step, 0, "challenge")?.stringValue)
        let key = SigningKey(algorithm: .es256, fresh: true)
        let done = driver.answer(
            step, ["IDToken1jws": .string(jws(signer: key, kid: "k1", challenge: challenge)), "IDToken1deviceName": "laptop"])
        #expect(done.json["tokenId"]?.stringValue != nil, "\(done.text)")
        #expect(driver.emulator.boundDevices().map(\.keyID) == ["k1"] && driver.emulator.boundDevices()[0].deviceName == "laptop")
        // Signing with the bound key, usernameless: demo signs in.
        let signing = driver.start("Device Sign In").json
        #expect(AMDriver.output(signing, 0, "userId")?.stringValue == "")
        let signChallenge = try #require(AMDriver.output(signing, 0, "challenge")?.stringValue)
        let signed = driver.answer(signing, ["IDToken1jws": .string(jws(signer: key, kid: "k1", challenge: signChallenge, bind: false))])
        #expect(signed.json["tokenId"]?.stringValue != nil, "\(signed.text)")
        // The same kid signed by another key: refused.
        let again = driver.start("Device Sign In").json
        let otherChallenge = try #require(AMDriver.output(again, 0, "challenge")?.stringValue)
        let forged = jws(signer: SigningKey(algorithm: .es256, fresh: true), kid: "k1", challenge: otherChallenge, bind: false)
        #expect(driver.answer(again, ["IDToken1jws": .string(forged)]).status == 401)
    }

    @Test(
        "emulator-device-binding-refused: a signature by another key than the header's, another challenge, an expired JWS, a client error",
        arguments: ["forged", "challenge", "expired", "clientError"])
    func refused(_ case: String) throws {
        let driver = try AMDriver()
        let step = deviceStep(driver, "Device Binding")
        let challenge = try #require(AMDriver.output(step, 0, "challenge")?.stringValue)
        let key = SigningKey(algorithm: .es256, fresh: true)
        var values: [String: EmulatorJSON] = [:]
        switch `case` {
        case "forged":
            values["IDToken1jws"] = .string(
                jws(signer: SigningKey(algorithm: .es256, fresh: true), headerKey: key, kid: "k", challenge: challenge))
        case "challenge": values["IDToken1jws"] = .string(jws(signer: key, kid: "k", challenge: "another"))
        case "expired": values["IDToken1jws"] = .string(jws(signer: key, kid: "k", challenge: challenge, exp: AMDriver.startTime - 1))
        default: values["IDToken1clientError"] = "Unsupported"
        }
        let answer = driver.answer(step, values)
        #expect(answer.status == 401 && answer.json["message"]?.stringValue == "Login failure", "\(answer.text)")
        #expect(driver.emulator.boundDevices().isEmpty)
    }

    @Test("emulator-oath-registration: the otpauth URI in a HiddenValueCallback (mfaDeviceRegistration), then the verifier takes its TOTP")
    func oath() throws {
        let driver = try AMDriver()
        let step = deviceStep(driver, "OATH Registration")
        #expect(AMDriver.types(step) == ["TextOutputCallback", "TextOutputCallback", "HiddenValueCallback", "ConfirmationCallback"])
        #expect(AMDriver.output(step, 2, "id")?.stringValue == "mfaDeviceRegistration")
        let uri = try #require(AMDriver.output(step, 2, "value")?.stringValue)
        #expect(uri.hasPrefix("otpauth://totp/PingAM:demo?secret="))
        let verifier = driver.answer(step, ["IDToken4": 0]).json
        #expect(
            AMDriver.types(verifier) == ["NameCallback"] && AMDriver.output(verifier, 0, "prompt")?.stringValue == "Enter verification code"
        )
        let secret = try #require(driver.emulator.oathSecret(for: "demo"))
        #expect(uri.contains("secret=\(secret)&"))
        let code = try #require(OneTimeCode.totp(secret: secret, at: AMDriver.startTime))
        #expect(driver.answer(verifier, ["IDToken1": .string(code)]).json["tokenId"]?.stringValue != nil)
    }
}
