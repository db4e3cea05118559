import Testing

@testable import PingAWS
@testable import PingCommands
@testable import PingCrypto
@testable import PingIntegrations
@testable import PingOAuth
@testable import PingPlatform
@testable import PingState

/// The two files of the AWS feature: the encrypted credentials cache and the AWS config file's edit.
@Suite("AWS: the credentials cache and the AWS config file")
struct AWSLocalFilesTests {
    let key = Sodium.randomBytes(32)
    let profile = Profile(
        issuer: "https://i", clientID: "c", scopes: ["openid"],
        metadata: ProviderMetadata(issuer: "https://i", authorizationEndpoint: "https://i/a", tokenEndpoint: "https://i/t"))
    let credentials = try! AWSCredentials(
        accessKeyID: "ASIAEXAMPLEKEY123456", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY",
        sessionToken: "FQoGZXIvYXdzEXAMPLE+token/with==", expiration: 1_900_000_000)

    @Test("aws-cache-format: sealed, bound to the profile, the session and the key; nothing in clear; anything else reads as empty")
    func cacheFormat() throws {
        let records = ["role=r\nsession=s\nduration=default": credentials]
        let session: [UInt8] = [1, 2, 3]
        let bytes = AWSCredentialsFile.encode(records, key: key, name: .default, profile: profile, session: session)
        #expect(Array(bytes.prefix(5)) == Array("PCLA".utf8) + [1])
        let text = String(decoding: bytes, as: UTF8.self)
        for secret in [credentials.accessKeyID, credentials.secretAccessKey, credentials.sessionToken] { #expect(!text.contains(secret)) }
        #expect(AWSCredentialsFile.decode(bytes, key: key, name: .default, profile: profile, session: session) == records)
        #expect(AWSCredentialsFile.decode(bytes, key: key, name: .default, profile: profile, session: [9]) == nil, "another session")
        #expect(AWSCredentialsFile.decode(bytes, key: Sodium.randomBytes(32), name: .default, profile: profile, session: session) == nil)
        #expect(AWSCredentialsFile.decode(bytes, key: key, name: try ProfileName("work"), profile: profile, session: session) == nil)
        var other = profile
        other.clientID = "another"
        #expect(AWSCredentialsFile.decode(bytes, key: key, name: .default, profile: other, session: session) == nil, "another client")
        var tampered = bytes
        tampered[tampered.count - 1] ^= 1
        #expect(AWSCredentialsFile.decode(tampered, key: key, name: .default, profile: profile, session: session) == nil)
        #expect(AWSCredentialsFile.decode(Array(bytes.prefix(50)), key: key, name: .default, profile: profile, session: session) == nil)
    }

    @Test("setup-aws-edit: set is idempotent and keeps every other line; remove restores the file; [default] and continuations")
    func configEdit() throws {
        let original = "# mine\n[default]\nregion = eu-west-1\n\n[profile ping]\nregion = us-east-1\n\n[profile other]\nx = 1\n"
        var file = AWSConfigFile(original)
        #expect(file.text == original)
        #expect(try file.set("ping", command: "pingcli aws credential-process") == true)
        #expect(
            file.text
                == original.replacingText(
                    "region = us-east-1\n", with: "region = us-east-1\ncredential_process = pingcli aws credential-process\n"))
        #expect(try file.set("ping", command: "pingcli aws credential-process") == false)
        #expect(try file.value(in: "ping") == "pingcli aws credential-process")
        #expect(try file.set("ping", command: "pingcli aws credential-process --duration 900") == true)
        #expect(try file.remove("ping") == true)
        #expect(file.text == original)
        #expect(try file.remove("ping") == false)
        // A new section is appended after one blank line, and removed with it.
        #expect(try file.set("new", command: "c") == true)
        #expect(file.text == original + "\n[profile new]\ncredential_process = c\n")
        #expect(try file.remove("new") == true)
        #expect(file.text == original)
        // [default] is the default profile's header; keys match without case, continuation lines go with them.
        var defaults = AWSConfigFile("[default]\nCredential_Process = old\n  nested = 1\nregion = x")
        #expect(try defaults.set("default", command: "new") == true)
        #expect(defaults.text == "[default]\ncredential_process = new\nregion = x")
        #expect(AWSConfigFile("").text == "")
    }

    @Test("aws-config-file: a section given twice is refused, not picked")
    func duplicateSection() {
        var file = AWSConfigFile("[profile ping]\na = 1\n[profile  ping]\nb = 2\n")
        #expect(throws: AWSConfigFile.Failure.duplicateSection("[profile ping]")) { try file.set("ping", command: "c") }
    }
}
