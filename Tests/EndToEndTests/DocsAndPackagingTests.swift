import Foundation
import PingEmulator
import Testing

/// The examples of docs/usage.md, run as written (only the issuer and client id point at the emulator).
@Suite("docs examples")
struct DocsExampleTests {
    /// The lines of the first ```sh block in docs/usage.md from the comment starting `marker` to the block's end.
    static func example(_ marker: String) throws -> String {
        let docs = URL(fileURLWithPath: Locations.support).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/usage.md").path
        let text = try #require(readText(docs))
        let start = try #require(text.range(of: marker))
        let end = try #require(text.range(of: "```", range: start.upperBound..<text.endIndex))
        return String(text[start.lowerBound..<end.lowerBound])
    }

    @Test("docs-secret-file: usage.md's confidential-client example works as written in a home whose ~/.config is 0755")
    func secretFileExample() throws {
        let emulator = try confidentialEmulator(method: "client_secret_basic")
        defer { emulator.stop() }
        let sandbox = Sandbox()
        try FileManager.default.createDirectory(
            atPath: sandbox.root + "/home/.config", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let script = try Self.example("# 4. A confidential client")
            .replacingOccurrences(of: "https://sso.example.com", with: emulator.issuer)
            .replacingOccurrences(of: "pingcli-confidential", with: "pingcli-test")
        var environment = sandbox.environment
        environment["PATH"] = Locations.binDirectory + ":" + (environment["PATH"] ?? "")
        environment["SECRET"] = confidentialSecret
        let run = runProcess("/bin/bash", ["-euo", "pipefail", "-c", script], environment: environment, timeout: 120)
        #expect(run.status == 0, "\(run)")
        #expect(emulator.requests(to: .token).count == 1, "signed in with the secret from the file")
    }
}

@Suite("man page environment and make targets")
struct ManEnvironmentAndMakeTests {
    @Test("man-environment: every PINGCLI_* variable in the built binary is in the man page's ENVIRONMENT and in configuration.md")
    func manEnvironmentComplete() throws {
        let tools = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        let strings = runProcess("/usr/bin/strings", ["-n", "8", Locations.pingcli], environment: tools, timeout: 120)
        #expect(strings.status == 0, "\(strings.stderr)")
        let pattern = try Regex("PINGCLI_[A-Z_]*[A-Z]")
        let names = Set(strings.stdout.matches(of: pattern).map { String(strings.stdout[$0.range]) })
            .filter { !$0.hasPrefix("PINGCLI_TEST_") }
        #expect(names.isSuperset(of: ["PINGCLI_PROFILE", "PINGCLI_ISSUER", "PINGCLI_CLIENT_SECRET"]), "\(names.sorted())")
        let sandbox = Sandbox()
        let page = sandbox.root + "/pingcli.1"
        try runProcess(Locations.pingcli, ["--help-man"], environment: [:], timeout: 30).stdout.write(toFile: page, atomically: true, encoding: .utf8)
        let manual = runProcess(
            "/usr/bin/man", ["-l", page], environment: tools.merging(["MANPAGER": "cat", "MANWIDTH": "200", "HOME": sandbox.root]) { $1 },
            timeout: 60)
        let environment = try #require(manual.stdout.components(separatedBy: "\nENVIRONMENT\n").last?.components(separatedBy: "\nFILES\n").first)
        let configuration = try #require(readText(DebianTools.repositoryRoot + "/docs/configuration.md"))
        for name in names.sorted() {
            #expect(environment.contains(name), "\(name) is missing from the man page's ENVIRONMENT section")
            #expect(configuration.contains("`\(name)`"), "\(name) is missing from docs/configuration.md")
        }
    }

    @Test(
        "make-release-no-kubectl: make release installs only the build's packages (no kubectl); make test's deps still get it",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/make"), "make is missing"))
    func releaseFetchesNoTestTools() {
        func dryRun(_ target: String) -> CLIRun {
            runProcess(
                "/usr/bin/make", ["--no-print-directory", "-n", "-C", DebianTools.repositoryRoot, target],
                environment: ["PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/nonexistent"], timeout: 120)
        }
        let release = dryRun("release")
        #expect(release.status == 0, "\(release)")
        #expect(!release.stdout.contains("kubernetes-client") && !release.stdout.contains("socat"), "\(release.stdout)")
        #expect(release.stdout.contains("libsodium-dev"), "the build's packages are still checked: \(release.stdout)")
        #expect(dryRun("test").stdout.contains("kubernetes-client"))
    }
}
