import Foundation
import Testing

@testable import PingOAuth

/// Client secrets and client authentication (RFC 6749 §2.3.1, OpenID Connect Core §9).
@Suite("client authentication: the secret's gate, Basic encoding, method choice")
struct ClientAuthenticationTests {
    @Test("client-secret-gate: 1*VSCHAR, at most 1024 bytes; one trailing newline of a file is not part of it")
    func secretGate() throws {
        #expect(try ClientSecret(checking: "a b~!:%+").value == "a b~!:%+")
        #expect(throws: ClientSecretError.empty) { try ClientSecret(checking: "") }
        #expect(throws: ClientSecretError.tooLong) { try ClientSecret(checking: String(repeating: "a", count: 1025)) }
        for bad in ["a\nb", "a\rb", "a\tb", "\u{1b}[2J", "a\u{7f}", "caf\u{e9}", "a\u{202e}b", "a\0b"] {
            #expect(throws: ClientSecretError.invalidCharacter, "\(bad.debugDescription)") { try ClientSecret(checking: bad) }
        }
        #expect(try ClientSecret(fileContents: Array("secret\n".utf8)).value == "secret")
        #expect(try ClientSecret(fileContents: Array("secret\r\n".utf8)).value == "secret")
        #expect(throws: ClientSecretError.invalidCharacter) { try ClientSecret(fileContents: Array("secret\n\n".utf8)) }
        #expect(throws: ClientSecretError.invalidCharacter) { try ClientSecret(fileContents: [0x61, 0xFF]) }
        #expect(throws: ClientSecretError.empty) { try ClientSecret(fileContents: Array("\n".utf8)) }
        // Never shown: not in description, not in an error message.
        let secret = try ClientSecret(checking: "hunter2")
        #expect("\(secret)" == "client secret (7 bytes)")
        #expect(!ClientSecretError.invalidCharacter.message.contains("hunter2"))
    }

    @Test("client-secret-basic: id and secret are form-encoded before base64 (RFC 6749 §2.3.1)")
    func basicEncoding() throws {
        let secret = try ClientSecret(checking: "s3cr:et +%&/=x")
        let header = ClientCredentials.basicAuthorization(clientID: "my app:1", secret: secret)
        let decoded = String(decoding: Data(base64Encoded: String(header.dropFirst(6)))!, as: UTF8.self)
        #expect(header.hasPrefix("Basic "))
        #expect(decoded == "my%20app%3A1:s3cr%3Aet%20%2B%25%26%2F%3Dx")
        let request = ClientCredentials(clientID: "my app:1", secret: secret, method: .clientSecretBasic)
            .form("https://as.example/token", [("grant_type", "client_credentials")])
        #expect(request.headers.contains { $0.name == "Authorization" && $0.value == header })
        #expect(String(decoding: request.body ?? [], as: UTF8.self) == "grant_type=client_credentials")
    }

    @Test("client-secret-post and public clients: the secret in the body, or only client_id")
    func postAndPublic() throws {
        let secret = try ClientSecret(checking: "a&b")
        let post = ClientCredentials(clientID: "id", secret: secret, method: .clientSecretPost).form("https://as.example/t", [("x", "1")])
        #expect(String(decoding: post.body ?? [], as: UTF8.self) == "x=1&client_id=id&client_secret=a%26b")
        #expect(!post.headers.contains { $0.name == "Authorization" })
        let publicClient = ClientCredentials(clientID: "id").form("https://as.example/t", [("x", "1")])
        #expect(String(decoding: publicClient.body ?? [], as: UTF8.self) == "x=1&client_id=id")
    }

    @Test("client-auth-method: client_secret_basic first when listed, then client_secret_post; basic when nothing is listed")
    func methodChoice() {
        #expect(ClientAuthMethod.choose(from: nil) == .clientSecretBasic)
        #expect(ClientAuthMethod.choose(from: ["client_secret_post", "client_secret_basic"]) == .clientSecretBasic)
        #expect(ClientAuthMethod.choose(from: ["none", "client_secret_post"]) == .clientSecretPost)
        #expect(ClientAuthMethod.choose(from: ["private_key_jwt"]) == nil)
    }
}
