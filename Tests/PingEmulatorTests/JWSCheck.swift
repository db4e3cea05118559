import Foundation

@testable import PingEmulator

/// Checks a JWS against a JWK with the `openssl` command, so the check shares no code with the emulator's
/// signer: the JWK's `n`/`e` (or `x`) become a DER SubjectPublicKeyInfo, and `openssl` verifies.
enum JWSCheck {
    /// The decoded header and claims of a compact JWS.
    static func parts(_ jws: String) -> (header: EmulatorJSON?, claims: EmulatorJSON?) {
        let segments = jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard segments.count == 3 else { return (nil, nil) }
        func decode(_ s: String) -> EmulatorJSON? { Base64URL.decode(s).flatMap { EmulatorJSON.parse(Data($0)) } }
        return (decode(segments[0]), decode(segments[1]))
    }

    /// true when `openssl` says the signature of `jws` verifies with `jwk` (RS256, PS256 or EdDSA).
    static func verifies(_ jws: String, with jwk: EmulatorJSON) throws -> Bool {
        let segments = jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard segments.count == 3, let signature = Base64URL.decode(segments[2]),
            let alg = jwk["alg"]?.stringValue
        else { return false }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jws-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = directory.appendingPathComponent("key.der")
        let message = directory.appendingPathComponent("message")
        let sig = directory.appendingPathComponent("signature")
        try Data(subjectPublicKeyInfo(jwk)).write(to: key)
        try Data((segments[0] + "." + segments[1]).utf8).write(to: message)
        try Data(signature).write(to: sig)
        var arguments: [String]
        switch alg {
        case "EdDSA":
            arguments = [
                "pkeyutl", "-verify", "-pubin", "-keyform", "DER", "-inkey", key.path, "-rawin", "-in", message.path, "-sigfile", sig.path,
            ]
        default:
            arguments = ["dgst", "-sha256", "-keyform", "DER", "-verify", key.path, "-signature", sig.path]
            if alg == "PS256" { arguments += ["-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:32"] }
            arguments.append(message.path)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    /// The JWK as a DER SubjectPublicKeyInfo (RFC 5280 §4.1; RSA per RFC 8017 A.1.1, Ed25519 per RFC 8410).
    static func subjectPublicKeyInfo(_ jwk: EmulatorJSON) -> [UInt8] {
        func length(_ count: Int) -> [UInt8] {
            guard count >= 128 else { return [UInt8(count)] }
            var bytes: [UInt8] = []
            var rest = count
            while rest > 0 {
                bytes.insert(UInt8(rest & 0xFF), at: 0)
                rest >>= 8
            }
            return [0x80 | UInt8(bytes.count)] + bytes
        }
        func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] { [tag] + length(content.count) + content }
        func integer(_ bytes: [UInt8]) -> [UInt8] {
            var trimmed = Array(bytes.drop { $0 == 0 })
            if trimmed.first.map({ $0 & 0x80 != 0 }) ?? true { trimmed.insert(0, at: 0) }
            return tlv(0x02, trimmed)
        }
        if jwk["kty"] == "OKP" {
            let x = jwk["x"]?.stringValue.flatMap(Base64URL.decode) ?? []
            return tlv(0x30, tlv(0x30, [0x06, 0x03, 0x2B, 0x65, 0x70]) + tlv(0x03, [0x00] + x))
        }
        let n = jwk["n"]?.stringValue.flatMap(Base64URL.decode) ?? []
        let e = jwk["e"]?.stringValue.flatMap(Base64URL.decode) ?? []
        let rsaEncryption: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01, 0x05, 0x00]
        return tlv(0x30, tlv(0x30, rsaEncryption) + tlv(0x03, [0x00] + tlv(0x30, integer(n) + integer(e))))
    }
}
