import Testing

@testable import PingBase
@testable import PingCrypto
@testable import PingOAuth
@testable import PingPlatform
@testable import PingState

#if canImport(Glibc)
    import Glibc
#endif

@Suite("encrypted token file")
struct EncryptedTokenFileTests {
    let tokens = TokenSet(
        accessToken: "access-secret", tokenType: "Bearer", expiresAt: 1_900_000_000, refreshToken: "refresh-secret",
        idToken: nil, scope: "openid", obtainedAt: 1_800_000_000)
    let key = Sodium.randomBytes(32)
    let name = ProfileName.default

    func profile(issuer: String = "https://i", tokenEndpoint: String = "https://i/t", caFile: String? = nil) -> Profile {
        Profile(
            issuer: issuer, clientID: "c", scopes: ["openid"],
            metadata: ProviderMetadata(
                issuer: issuer, authorizationEndpoint: try! EndpointURL(issuer + "/a"), tokenEndpoint: try! EndpointURL(tokenEndpoint)),
            caFile: caFile)
    }

    func encode(_ tokens: TokenSet? = nil) -> [UInt8] {
        EncryptedTokenFile.encode(tokens ?? self.tokens, key: key, name: name, profile: profile())
    }

    func decode(
        _ bytes: [UInt8], key: [UInt8]? = nil, name: ProfileName? = nil, profile: Profile? = nil
    )
        throws(EncryptedTokenFile.DecodeError) -> TokenSet
    {
        try EncryptedTokenFile.decode(bytes, key: key ?? self.key, name: name ?? self.name, profile: profile ?? self.profile())
    }

    @Test("a written file reads back, with a version 5 header, and holds no plaintext")
    func roundTrip() throws {
        let bytes = encode()
        #expect(Array(bytes.prefix(8)) == Array("PCLI".utf8) + [5, 0, 0, 0])
        #expect(try decode(bytes) == tokens)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(!text.contains("access-secret") && !text.contains("refresh-secret"))
        #expect(encode() != bytes)  // a fresh nonce per write
    }

    @Test("cache-tampered: one flipped bit fails authentication")
    func tampered() {
        var bytes = encode()
        bytes[bytes.count - 20] ^= 1
        #expect(throws: EncryptedTokenFile.DecodeError.cannotDecrypt) { try decode(bytes) }
    }

    @Test("cache-other-profile: a file copied to another profile or issuer does not decrypt")
    func otherProfile() throws {
        #expect(throws: EncryptedTokenFile.DecodeError.cannotDecrypt) { try decode(encode(), name: try ProfileName("work")) }
    }

    @Test("cache-other-key: a file encrypted under another key does not decrypt")
    func otherKey() {
        #expect(throws: EncryptedTokenFile.DecodeError.cannotDecrypt) { try decode(encode(), key: Sodium.randomBytes(32)) }
    }

    @Test("cache-truncated and cache-foreign: short files and other formats are named as such")
    func truncatedAndForeign() {
        #expect(throws: EncryptedTokenFile.DecodeError.truncated) { try decode(Array(encode().prefix(30))) }
        #expect(throws: EncryptedTokenFile.DecodeError.notATokenFile) { try decode(Array("{\"access_token\":1}".utf8)) }
        var future = encode()
        future[4] = 6
        #expect(throws: EncryptedTokenFile.DecodeError.unsupportedVersion(6)) { try decode(future) }
    }

    @Test("cache-implausible-times: an authentic file whose times no pingcli could have written is not a token set")
    func implausibleTimes() throws {
        for (expiresAt, obtainedAt) in [(9.4e25, 1_800_000_000.0), (1_900_000_000.0, -1.0), (1_900_000_000.0, 3e11)] {
            var odd = tokens
            odd.expiresAt = expiresAt
            odd.obtainedAt = obtainedAt
            let bytes = encode(odd)
            #expect(throws: EncryptedTokenFile.DecodeError.notATokenSet) { try decode(bytes) }
        }
        var unknownExpiry = tokens
        unknownExpiry.expiresAt = nil
        #expect(try decode(encode(unknownExpiry)) == unknownExpiry)
    }

    @Test("error messages name the file and the fix and contain nothing from the file")
    func messages() {
        let message = EncryptedTokenFile.DecodeError.cannotDecrypt.message(path: "/x/tokens.enc", profile: name)
        #expect(message.contains("/x/tokens.enc") && message.contains("pingcli login --profile default"))
        let changed = EncryptedTokenFile.DecodeError.profileChanged.message(path: "/x/tokens.enc", profile: name)
        #expect(changed.hasPrefix("profile file /x/profile.json was changed outside pingcli"))
        #expect(changed.hasSuffix("run pingcli login --profile default"))
    }

    @Test(
        "profile-binding: changing any bound field of profile.json is detected as a changed profile, not a damaged cache",
        arguments: [
            "issuer", "token_endpoint", "ca_file", "client_id", "token_endpoint_auth_method", "revocation_endpoint_auth_method",
            "grant_type", "port", "client_certificate_file", "client_key_file", "pinned_public_keys",
        ])
    func profileBinding(field: String) throws {
        var changed = profile()
        switch field {
        case "token_endpoint_auth_method": changed.tokenEndpointAuthMethod = .clientSecretPost
        case "revocation_endpoint_auth_method": changed.revocationEndpointAuthMethod = .clientSecretBasic
        case "grant_type": changed.grantType = .clientCredentials
        case "port": changed.port = 8765
        case "client_certificate_file": changed.clientCertificateFile = "/tmp/evil.pem"
        case "client_key_file": changed.clientKeyFile = "/tmp/evil.key"
        case "pinned_public_keys": changed.pinnedPublicKeys = [try KeyPin(checking: "sha256//" + String(repeating: "A", count: 43) + "=")]
        case "issuer": changed = profile(issuer: "https://evil")
        case "token_endpoint": changed = profile(tokenEndpoint: "https://evil/steal")
        case "ca_file": changed = profile(caFile: "/tmp/evil.pem")
        default: changed.clientID = "other"
        }
        #expect(throws: EncryptedTokenFile.DecodeError.profileChanged) { try decode(encode(), profile: changed) }
        var scopes = profile()
        scopes.scopes = ["openid", "email"]  // not bound: scopes do not decide where tokens go
        #expect((try? decode(encode(), profile: scopes)) == tokens)
    }

    @Test("profile-binding-canonical: values cannot imitate other fields, and an absent optional field is left out")
    func canonicalBinding() {
        var withCA = profile(caFile: "x")
        #expect(withCA.bindingDigest != profile().bindingDigest)
        withCA.caFile = nil
        #expect(withCA.bindingDigest == profile().bindingDigest)
        // A URL cannot hold a newline (the URL gate), but a CA file path can.
        let text = String(decoding: profile(caFile: "/ca.pem\nclient_id=1:x").bindingBytes, as: UTF8.self)
        #expect(text.contains("ca_file=21:/ca.pem\nclient_id=1:x\n"))
        // Each value's length in decimal: one, two and three digits, and none.
        let long = String(repeating: "d", count: 150)
        #expect(String(decoding: profile(caFile: "/" + long).bindingBytes, as: UTF8.self).contains("\nca_file=151:/\(long)\n"))
        #expect(String(decoding: profile(caFile: "").bindingBytes, as: UTF8.self).contains("\nca_file=0:\n"))
    }
}

@Suite("token store on disk")
struct TokenStoreTests {
    func temporaryDirectory() -> String {
        makeTemporaryDirectory("test")
    }

    func mode(_ path: String) -> mode_t {
        var info = stat()
        stat(path, &info)
        return info.st_mode & 0o777
    }

    @Test("tokens saved are private (0700 directories, 0600 files), encrypted, and the key lives outside the config directory")
    func saveAndLoad() throws {
        let root = temporaryDirectory()
        let store = TokenStore(
            paths: Paths(
                configDirectory: root + "/config/pingcli", dataDirectory: root + "/data/pingcli", stateDirectory: root + "/state/pingcli"))
        let metadata = ProviderMetadata(issuer: "https://i", authorizationEndpoint: "https://i/a", tokenEndpoint: "https://i/t")
        let profile = Profile(issuer: "https://i", clientID: "c", scopes: ["openid"], metadata: metadata)
        let tokens = TokenSet(
            accessToken: "A", tokenType: "Bearer", expiresAt: nil, refreshToken: "R", idToken: nil, scope: nil, obtainedAt: 0)
        try store.writeProfile(profile, as: .default)
        try store.writeTokens(tokens, .default, profile: profile, key: store.commandKey())
        #expect(try store.readProfile(.default) == profile)
        #expect(try store.readTokens(.default, profile: profile, key: store.commandKey()) == tokens)
        #expect(mode(root + "/config/pingcli/profiles/default") == 0o700)
        #expect(mode(root + "/config/pingcli/profiles/default/tokens.enc") == 0o600)
        #expect(mode(root + "/data/pingcli/key") == 0o600)
        #expect(mode(root + "/data/pingcli") == 0o700)
        #expect(try FileSystem.read(root + "/data/pingcli/key")?.count == 32)
        #expect(mode(root + "/data/pingcli/generations/default") == 0o600)
        // No temporary files are left behind; settings, cache and status summary in the profile's directory, the key and
        // the generation record in the data directory, nothing in the state one.
        func names(_ path: String) throws -> [String] {
            let directory = try #require(opendir(path))
            var names: [String] = []
            while let entry = readdir(directory) {
                names.append(withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
            }
            closedir(directory)
            return names.filter { $0 != "." && $0 != ".." }.sorted()
        }
        #expect(try names(root + "/config/pingcli/profiles/default") == ["profile.json", "status.enc", "tokens.enc"])
        #expect(mode(root + "/config/pingcli/profiles/default/status.enc") == 0o600)
        #expect(try names(root + "/data/pingcli") == ["generations", "key"])
        #expect(opendir(root + "/state") == nil)
    }

    @Test("a crash before the rename leaves the old file whole")
    func crashBeforeRename() throws {
        let root = temporaryDirectory()
        let path = root + "/file"
        try FileSystem.atomicWrite(path, Array("old".utf8))
        struct Crash: Error {}
        // The seam runs with the new file complete; reading now must still give the old content.
        try FileSystem.atomicWrite(
            path, Array("new".utf8),
            beforeRename: {
                #expect((try? FileSystem.read(path)) == Array("old".utf8))
            })
        #expect(try FileSystem.read(path) == Array("new".utf8))
    }

    @Test("two first logins at once create one key and both use it")
    func exclusiveKey() throws {
        let root = temporaryDirectory()
        let first = try KeySource.file(path: root + "/k/key").load(create: true)
        let second = try KeySource.file(path: root + "/k/key").load(create: true)
        #expect(first == second)
        #expect(try FileSystem.createExclusively(root + "/k/key", [1, 2, 3]) == false)
    }

    @Test("profile names that could escape the directory are refused")
    func profileNames() {
        for bad in ["", "../x", ".hidden", "a/b", String(repeating: "a", count: 65), "sp ace"] {
            #expect(throws: ProfileName.Refused.self) { try ProfileName(bad) }
        }
        #expect((try? ProfileName("work-eu_2.prod"))?.value == "work-eu_2.prod")
    }
}

@Suite("refresh backoff and the file gate")
struct RefreshBackoffUnitTests {
    @Test("refresh-backoff: 10 s after the first failure, doubling up to 5 minutes; a longer Retry-After wins, still capped")
    func schedule() {
        #expect((1...7).map { RefreshFailure.backoff(attempts: $0) } == [10, 20, 40, 80, 160, 300, 300])
        #expect(RefreshFailure.backoff(attempts: 1, retryAfterHeader: 120) == 120)
        #expect(RefreshFailure.backoff(attempts: 3, retryAfterHeader: 5) == 40)
        #expect(RefreshFailure.backoff(attempts: 1, retryAfterHeader: 86_400) == 300)
        #expect(RefreshFailure.backoff(attempts: 1_000) == 300)
    }

    @Test("file-gate: a FIFO is refused without blocking, a symlink is not followed, a missing file is nil")
    func gate() throws {
        let root = makeTemporaryDirectory("gate")
        #expect(mkfifo(root + "/fifo", 0o600) == 0)
        #expect(symlink(root + "/target", root + "/link") == 0)
        for (name, reason) in [("fifo", "a FIFO (named pipe), not a regular file"), ("link", "a symbolic link")] {
            do {
                _ = try FileSystem.read(root + "/" + name, protection: .secret)
                Issue.record("\(name) was read")
            } catch {
                #expect(error.message.contains("refusing to use \(root)/\(name): it is \(reason)"), "\(error)")
            }
        }
        #expect(try FileSystem.read(root + "/missing", protection: .secret) == nil)
        #expect(throws: FileFailure.self) {
            _ = try FileLock(path: root + "/link", timeout: 1, subject: .profile(.default), holder: "pingcli test")
        }
        #expect(access(root + "/target", F_OK) != 0, "the link's target was not created")
    }
}
