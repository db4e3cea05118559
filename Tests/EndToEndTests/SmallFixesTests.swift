import Foundation
import PingEmulator
import Testing

/// The smaller bugs of issue 11, one test each.
@Suite("small fixes: CA file, prompt, logout, status, key command, --version")
struct SmallFixesTests {
    /// A PEM certificate in the sandbox.
    func certificate(_ sandbox: Sandbox, name: String = "ca.pem") throws -> String {
        let path = sandbox.root + "/" + name
        try TLSFront.makeCertificate(name: "ca.example.test", subjectAltName: "DNS:ca.example.test", certFile: path, keyFile: path + ".key")
        return path
    }

    @Test("ca-file-relative: a relative --ca-file is saved as an absolute path, usable from any directory")
    func relativeCAFileSavedAbsolute() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        defer { emulator.stop() }
        _ = try certificate(sandbox)
        // sh changes directory first: the relative path only means something there.
        let login = runProcess(
            "/bin/sh",
            [
                "-c", "cd \"$1\" && exec \"$2\" login --issuer \"$3\" --client-id pingcli-test --timeout 30 --ca-file ./ca.pem", "sh",
                sandbox.root, Locations.pingcli, emulator.issuer,
            ], environment: sandbox.environment, timeout: 60)
        #expect(login.status == 0, "\(login)")
        let profile = try #require(readText(sandbox.profileDirectory + "/profile.json"))
        let saved = try #require(try JSONSerialization.jsonObject(with: Data(profile.utf8)) as? [String: Any])
        #expect(saved["ca_file"] as? String == sandbox.root + "/ca.pem", "\(profile)")
    }

    @Test(
        "ca-file-checked: a missing, non-PEM or non-regular CA file is a usage error before any network",
        arguments: [
            ("missing.pem", "No such file or directory"),
            ("not-pem.txt", "holds no PEM certificate"),
            ("directory", "is not a regular file"),
        ])
    func caFileChecked(file: String, message: String) throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        defer { emulator.stop() }
        try "just text\n".write(toFile: sandbox.root + "/not-pem.txt", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: sandbox.root + "/directory", withIntermediateDirectories: true)
        for (arguments, environment) in [
            (["--ca-file", sandbox.root + "/" + file], [:]), ([], ["PINGCLI_CA_FILE": sandbox.root + "/" + file]),
        ] {
            let run = sandbox.login(emulator, arguments, environment: environment)
            #expect(run.status == 2, "\(run)")
            #expect(run.stderr.contains(message) && run.stderr.contains("give the PEM file of the issuer's CA"), "\(run)")
            #expect(run.stderr.contains(environment.isEmpty ? "--ca-file" : "PINGCLI_CA_FILE"))
        }
        #expect(emulator.requests.isEmpty, "nothing reached the server")
    }

    @Test(
        "prompt-values: --prompt takes OIDC Core's values (several, or none alone); anything else is a usage error",
        arguments: [("bogus", false), ("login consent", true), ("none login", false), ("login login", false), ("select_account", true)])
    func promptValues(prompt: String, accepted: Bool) throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        defer { emulator.stop() }
        let run = sandbox.login(emulator, ["--prompt", prompt])
        if accepted {
            #expect(run.status == 0, "\(run)")
            #expect(emulator.authorizationRequestParameters.first?["prompt"] == prompt)
        } else {
            #expect(run.status == 2 && run.stderr.contains("is not an OpenID Connect prompt"), "\(run)")
            #expect(emulator.requests.isEmpty)
        }
    }

    @Test("logout-empty: logout --all --revoke on a profile without tokens says only that nothing was cached")
    func logoutEmptyProfile() throws {
        let (emulator, sandbox) = try loggedIn()
        defer { emulator.stop() }
        #expect(sandbox.run(["logout"]).stderr.contains("Removed the cached tokens of profile \"default\"."))
        let run = sandbox.run(["logout", "--all", "--revoke"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr == "No tokens were cached for profile \"default\": nothing to remove or revoke.\n", "\(run)")
        #expect(emulator.requests(to: .revoke).isEmpty)
    }

    @Test("status-all-json-empty: status --all --json without profiles prints [] and exits 4")
    func statusAllJSONEmpty() {
        let run = Sandbox().run(["status", "--all", "--json"])
        #expect(run.stdout == "[]\n", "\(run)")
        #expect(run.status == 4 && run.stderr == "pingcli: no profiles: run pingcli login --issuer URL --client-id ID\n", "\(run)")
        let text = Sandbox().run(["status", "--all"])
        #expect(text.stdout.isEmpty && text.status == 4, "\(text)")
    }

    @Test("key-command-status: a failing key command gives the same exit status (1) from status as from token")
    func keyCommandExitStatus() throws {
        let (emulator, sandbox) = try loggedIn()
        defer { emulator.stop() }
        let failing = ["PINGCLI_KEY_COMMAND": "exit 3"]
        let token = sandbox.run(["token", "--raw"], environment: failing)
        let status = sandbox.run(["status"], environment: failing)
        #expect(token.status == 1, "\(token)")
        #expect(status.status == 1, "\(status)")
        #expect(token.stderr.contains("PINGCLI_KEY_COMMAND") && status.stderr.contains("PINGCLI_KEY_COMMAND"), "\(token)\(status)")
        #expect(sandbox.run(["status", "--all"], environment: failing).status == 1)
        #expect(sandbox.run(["status"]).status == 0, "the key file still works")
    }

    @Test("version-without-home: pingcli --version needs no HOME (env -i, a package's post-install check)")
    func versionWithoutHome() {
        for arguments in [["--version"], ["version"]] {
            let run = runProcess(Locations.pingcli, arguments, environment: [:], timeout: 30)
            #expect(run.status == 0 && run.stdout == "pingcli \(PingCLIVersionForTests.current)\n", "\(run)")
        }
    }
}

/// The version the built binary reports, read from its source so the test needs no import of PingCLICore.
enum PingCLIVersionForTests {
    static let current: String = {
        let source = readText(DebianTools.repositoryRoot + "/Sources/PingBase/Version.swift") ?? ""
        return source.split(separator: "\"").dropFirst().first.map(String.init) ?? "?"
    }()
}
