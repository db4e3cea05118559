import Foundation
import Testing

/// docs/usage.md's "One-time codes (OATH)" examples, run as written, each code checked with oathtool.
@Suite("docs examples: otp")
struct DocsOTPExamples {
    static let add = "pingcli otp add < acme.uri # the otpauth:// URI (decoded from the QR code) on standard input"
    static let addFile = "pingcli otp add --name vpn --file vpn.uri # ... or from a file of mode 0600, under a name of your own"
    static let code = "pingcli otp code ACME:alice # the current code, alone on stdout"
    static let codeJSON = #"pingcli otp code vpn --json # with "expires_at" and "remaining_seconds" (TOTP) or "counter" (HOTP)"#
    static let list = "pingcli otp list # name, type, algorithm, digits, period or counter: never a secret"
    static let remove = "pingcli otp remove vpn --yes # forget the account on this machine (without --yes it asks on a terminal)"

    @Test("docs-usage-otp: add from stdin and from a 0600 file, code, code --json, list, remove")
    func otpExamples() throws {
        let sandbox = Sandbox()
        let home = sandbox.environment["HOME"]!
        let secret = OTPEndToEndTests.secret
        for (file, uri) in [
            ("acme.uri", "otpauth://totp/ACME:alice?secret=\(secret)&issuer=ACME"),
            ("vpn.uri", "otpauth://hotp/Corp:bob?secret=\(secret)&counter=3"),
        ] {
            #expect(
                FileManager.default.createFile(atPath: home + "/" + file, contents: Data(uri.utf8), attributes: [.posixPermissions: 0o600]))
        }
        let shell = DocsShell(sandbox)
        try shell.succeeds(Self.add)
        try shell.succeeds(Self.addFile)
        let code = try shell.succeeds(Self.code).stdout
        #expect(code.count == 7 && code.last == "\n", "\(code)")
        let json = try shell.succeeds(Self.codeJSON).stdout
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["counter"] as? Int == 3 && object["type"] as? String == "hotp", "\(json)")
        // RFC 4226 Appendix D, counter 3.
        #expect(object["code"] as? String == "969429", "\(json)")
        let list = try shell.succeeds(Self.list).stdout
        #expect(list == "ACME:alice\ttotp\tSHA1\t6 digits\t30s\nvpn\thotp\tSHA1\t6 digits\tcounter 4\n", "\(list)")
        try shell.succeeds(Self.remove)
        #expect(try shell.succeeds(Self.list).stdout == "ACME:alice\ttotp\tSHA1\t6 digits\t30s\n")
    }
}
