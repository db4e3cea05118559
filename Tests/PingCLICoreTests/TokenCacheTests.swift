import Testing

@testable import PingCLICore

#if canImport(Glibc)
    import Glibc
#endif

@Suite("encrypted token file")
struct EncryptedTokenFileTests {
    let tokens = TokenSet(
        accessToken: "access-secret", tokenType: "Bearer", expiresAt: 1_900_000_000, refreshToken: "refresh-secret",
        idToken: nil, scope: "openid", obtainedAt: 1_800_000_000)
    let key = Sodium.randomBytes(32)
    let profile = ProfileName.default

    func encode() -> [UInt8] {
        EncryptedTokenFile.encode(tokens, key: key, profile: profile, issuer: "https://i", clientID: "c")
    }

    func decode(
        _ bytes: [UInt8], key: [UInt8]? = nil, profile: ProfileName? = nil, issuer: String = "https://i"
    )
        throws(EncryptedTokenFile.DecodeError) -> TokenSet
    {
        try EncryptedTokenFile.decode(bytes, key: key ?? self.key, profile: profile ?? self.profile, issuer: issuer, clientID: "c")
    }

    @Test("a written file reads back, with a version 1 header, and holds no plaintext")
    func roundTrip() throws {
        let bytes = encode()
        #expect(Array(bytes.prefix(8)) == Array("PCLI".utf8) + [1, 0, 0, 0])
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
        #expect(throws: EncryptedTokenFile.DecodeError.cannotDecrypt) { try decode(encode(), profile: try ProfileName("work")) }
        #expect(throws: EncryptedTokenFile.DecodeError.cannotDecrypt) { try decode(encode(), issuer: "https://other") }
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
        future[4] = 2
        #expect(throws: EncryptedTokenFile.DecodeError.unsupportedVersion(2)) { try decode(future) }
    }

    @Test("cache-implausible-times: an authentic file whose times no pingcli could have written is not a token set")
    func implausibleTimes() throws {
        for (expiresAt, obtainedAt) in [(9.4e25, 1_800_000_000.0), (1_900_000_000.0, -1.0), (1_900_000_000.0, 3e11)] {
            var odd = tokens
            odd.expiresAt = expiresAt
            odd.obtainedAt = obtainedAt
            let bytes = EncryptedTokenFile.encode(odd, key: key, profile: profile, issuer: "https://i", clientID: "c")
            #expect(throws: EncryptedTokenFile.DecodeError.notATokenSet) { try decode(bytes) }
        }
        var unknownExpiry = tokens
        unknownExpiry.expiresAt = nil
        #expect(
            try decode(EncryptedTokenFile.encode(unknownExpiry, key: key, profile: profile, issuer: "https://i", clientID: "c"))
                == unknownExpiry)
    }

    @Test("error messages name the file and the fix and contain nothing from the file")
    func messages() {
        let message = EncryptedTokenFile.DecodeError.cannotDecrypt.message(path: "/x/tokens.enc", profile: profile)
        #expect(message.contains("/x/tokens.enc") && message.contains("pingcli login --profile default"))
    }
}

@Suite("token store on disk")
struct TokenStoreTests {
    func temporaryDirectory() -> String {
        var template = Array("/tmp/pingcli-test-XXXXXX".utf8CString)
        let pointer = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        return String(cString: pointer!)
    }

    func mode(_ path: String) -> mode_t {
        var info = stat()
        stat(path, &info)
        return info.st_mode & 0o777
    }

    @Test("tokens saved are private (0700 directories, 0600 files), encrypted, and the key lives outside the config directory")
    func saveAndLoad() throws {
        let root = temporaryDirectory()
        let store = TokenStore(paths: Paths(configDirectory: root + "/config/pingcli", dataDirectory: root + "/data/pingcli"))
        let metadata = ProviderMetadata(issuer: "https://i", authorizationEndpoint: "https://i/a", tokenEndpoint: "https://i/t")
        let profile = Profile(issuer: "https://i", clientID: "c", scopes: ["openid"], metadata: metadata)
        let tokens = TokenSet(
            accessToken: "A", tokenType: "Bearer", expiresAt: nil, refreshToken: "R", idToken: nil, scope: nil, obtainedAt: 0)
        try store.saveProfile(profile, as: .default)
        try store.saveTokens(tokens, .default, profile: profile)
        #expect(try store.loadProfile(.default) == profile)
        #expect(try store.loadTokens(.default, profile: profile) == tokens)
        #expect(mode(root + "/config/pingcli/profiles/default") == 0o700)
        #expect(mode(root + "/config/pingcli/profiles/default/tokens.enc") == 0o600)
        #expect(mode(root + "/data/pingcli/key") == 0o600)
        #expect(mode(root + "/data/pingcli") == 0o700)
        #expect(try FileSystem.read(root + "/data/pingcli/key")?.count == 32)
        // No temporary files are left behind.
        let directory = try #require(opendir(root + "/config/pingcli/profiles/default"))
        var names: [String] = []
        while let entry = readdir(directory) {
            names.append(withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
        }
        closedir(directory)
        #expect(names.filter { $0 != "." && $0 != ".." }.sorted() == ["profile.json", "tokens.enc"])
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
            #expect(throws: PingCLIError.self) { try ProfileName(bad) }
        }
        #expect((try? ProfileName("work-eu_2.prod"))?.value == "work-eu_2.prod")
    }
}
