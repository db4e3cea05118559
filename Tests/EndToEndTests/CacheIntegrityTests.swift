import Foundation
import PingEmulator
import Testing

/// Asserts a one-line error on stderr for `rule` (nil only for a run no sandbox recorded: another uid's),
/// containing every fragment (facts such as a path, and the next step), no token on either stream, and the
/// status.
func expectOneLineError(
    _ run: CLIRun, status: Int32, rule: String?, contains fragments: [String] = [], secrets: [String],
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(run.status == status, "\(run)", sourceLocation: sourceLocation)
    #expect(run.rule == rule, "\(run)", sourceLocation: sourceLocation)
    #expect(run.stdout.isEmpty, sourceLocation: sourceLocation)
    #expect(run.stderr.split(separator: "\n").count == 1, "\(run)", sourceLocation: sourceLocation)
    for fragment in fragments { #expect(run.stderr.contains(fragment), "\(run)", sourceLocation: sourceLocation) }
    for secret in secrets { #expect(!run.stderr.contains(secret), sourceLocation: sourceLocation) }
}

@Suite("token cache: tampering, foreign files and permissions")
struct CacheIntegrityTests {
    func secrets(_ emulator: Emulator) -> [String] { emulator.issuedAccessTokens + emulator.issuedRefreshTokens }

    @Test("cache-truncated: a truncated cache is named, with the fix, exit 4")
    func truncated() throws {
        let (emulator, sandbox) = try loggedIn()
        let path = sandbox.stateDirectory + "/tokens.enc"
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        try bytes.prefix(20).write(to: URL(fileURLWithPath: path))
        expectOneLineError(
            sandbox.run(["token", "--raw"]), status: 4, rule: "cache-truncated",
            contains: [path, "truncated", "pingcli login --profile default"],
            secrets: secrets(emulator))
    }

    @Test(
        "cache-v3-still-reads: the built binary reads a format 3 cache written before format 4 (Tests/Fixtures/cache-format-3), offline, and refuses it beside a changed profile.json"
    )
    func formatThreeFixture() throws {
        let sandbox = Sandbox()
        let fixtures = URL(fileURLWithPath: Locations.support).deletingLastPathComponent().appendingPathComponent("Fixtures/cache-format-3")
        for (file, directory) in [
            ("profile.json", sandbox.profileDirectory), ("tokens.enc", sandbox.stateDirectory),
            ("key", sandbox.root + "/data/pingcli"),
        ] {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let target = directory + "/" + file
            try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent(file).path, toPath: target)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: target)
        }
        // status reads the cache without the network (the fixture's issuer is long gone); its refresh token
        // keeps it logged in whether or not the access token has expired since.
        let status = sandbox.run(["status", "--json"])
        #expect(status.status == 0, "\(status)")
        #expect(
            status.stdout.contains("\"logged_in\": true") && status.stdout.contains("5a1c0f3e-8b2d-4e6a-9c7f-1d2e3f4a5b6c"), "\(status)")
        #expect(!status.stderr.contains("older pingcli"), "\(status)")
        // The binding still holds for format 3: another client id in profile.json is refused, exit 4.
        let profile = sandbox.profileDirectory + "/profile.json"
        let edited = try String(contentsOfFile: profile, encoding: .utf8).replacingOccurrences(of: "pingcli-bench", with: "another-client")
        try edited.write(toFile: profile, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: profile)
        let refused = sandbox.run(["status"])
        #expect(refused.rule == "status-problem", "\(refused)")
        #expect(refused.status == 4 && refused.stderr.contains("was changed outside pingcli"), "\(refused)")
    }

    @Test("cache-edited: one changed byte fails authentication, exit 4")
    func edited() throws {
        let (emulator, sandbox) = try loggedIn()
        let path = sandbox.stateDirectory + "/tokens.enc"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[bytes.count / 2] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: path))
        expectOneLineError(
            sandbox.run(["token", "--raw"]), status: 4, rule: "cache-tampered", contains: [path, "cannot be decrypted"],
            secrets: secrets(emulator))
    }

    @Test("cache-copied-from-other-profile: a cache copied between profiles does not decrypt, exit 4")
    func copiedFromOtherProfile() throws {
        let (emulator, sandbox) = try loggedIn(profile: "work")
        #expect(sandbox.login(emulator, ["--profile", "home"]).status == 0)
        let work = sandbox.root + "/config/pingcli/profiles/work/tokens.enc"
        let home = sandbox.root + "/config/pingcli/profiles/home/tokens.enc"
        try FileManager.default.removeItem(atPath: home)
        try FileManager.default.copyItem(atPath: work, toPath: home)
        expectOneLineError(
            sandbox.run(["token", "--raw", "--profile", "home"]), status: 4, rule: "cache-tampered",
            contains: [home, "copied from another profile", "pingcli login --profile home"], secrets: secrets(emulator))
        #expect(sandbox.run(["token", "--raw", "--profile", "work"]).status == 0, "the original is untouched")
    }

    @Test("cache-other-key: a cache encrypted under another key does not decrypt, exit 4")
    func otherKey() throws {
        let (emulator, sandbox) = try loggedIn()
        try Data((0..<32).map { _ in UInt8.random(in: 0...255) }).write(to: URL(fileURLWithPath: sandbox.keyFile))
        expectOneLineError(
            sandbox.run(["token", "--raw"]), status: 4, rule: "cache-tampered", contains: ["tokens.enc", "another key"],
            secrets: secrets(emulator))
    }

    @Test("cache-key-missing: a missing key file is named, exit 4")
    func keyMissing() throws {
        let (emulator, sandbox) = try loggedIn()
        try FileManager.default.removeItem(atPath: sandbox.keyFile)
        expectOneLineError(
            sandbox.run(["token", "--raw"]), status: 4, rule: "cache-key-missing", contains: [sandbox.keyFile, "missing", "pingcli login"],
            secrets: secrets(emulator))
    }

    @Test(
        "cache-permissions: a cache or key file open to others, or a cache directory they may write, is refused with the chmod to run",
        arguments: [
            ("tokens.enc", 0o644, "chmod 600"), ("", 0o775, "chmod go-w"), ("", 0o757, "chmod go-w"), ("KEY", 0o640, "chmod 600"),
        ])
    func permissions(file: String, mode: Int, fix: String) throws {
        let (emulator, sandbox) = try loggedIn()
        let path =
            file == "KEY" ? sandbox.keyFile : file.isEmpty ? sandbox.stateDirectory : sandbox.stateDirectory + "/" + file
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        expectOneLineError(
            sandbox.run(["token", "--raw"]), status: 1, rule: "file-mode-refused", contains: ["refusing to use \(path)", "\(fix) \(path)"],
            secrets: secrets(emulator))
        try FileManager.default.setAttributes([.posixPermissions: file.isEmpty ? 0o700 : 0o600], ofItemAtPath: path)
        #expect(sandbox.run(["token", "--raw"]).status == 0, "the fix works")
    }
}

@Suite("keys: PINGCLI_KEY_COMMAND")
struct KeyCommandTests {
    let key = Data((0..<32).map { UInt8($0 * 7 & 0xFF) })

    @Test("key-command: a command that prints a base64 key replaces the key file", arguments: ["base64", "hex"])
    func keyCommand(encoding: String) throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        let text = encoding == "hex" ? key.map { String(format: "%02x", $0) }.joined() : key.base64EncodedString()
        let environment = ["PINGCLI_KEY_COMMAND": "echo \(text)"]
        #expect(sandbox.login(emulator, environment: environment).status == 0)
        #expect(!FileManager.default.fileExists(atPath: sandbox.keyFile), "no key on disk")
        #expect(sandbox.run(["token", "--raw"], environment: environment).stdout == emulator.newestTokenLine)
        // Without the command, nothing on disk decrypts the cache.
        #expect(sandbox.run(["token", "--raw"]).status == 4)
    }

    @Test(
        "key-command-failure: a failing command or a wrong-length key gives a clear one-line error",
        arguments: [
            ("exit 3", "key-command-status"),
            ("echo c2hvcnQ=", "key-command"),
        ])
    func keyCommandFailure(command: String, rule: String) throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        let run = sandbox.login(emulator, environment: ["PINGCLI_KEY_COMMAND": command])
        expectOneLineError(run, status: 1, rule: rule, secrets: emulator.issuedAccessTokens + emulator.issuedRefreshTokens)
    }
}
