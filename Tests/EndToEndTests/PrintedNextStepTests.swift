import Foundation
import PingEmulator
import Testing

/// Each failure that tells the person to run something, provoked through the built binary, and the
/// command it printed run as printed (a placeholder such as PATH or FILE filled in): it must work there.
@Suite("every next step runs as printed")
struct PrintedNextStepTests {
    /// The text of `line` after `start` and before `end` (or to the line's end).
    func between(_ line: String, _ start: String, _ end: String? = nil) -> String? {
        guard let from = line.range(of: start)?.upperBound else { return nil }
        let rest = line[from...]
        guard let end, let to = rest.range(of: end)?.lowerBound else { return String(rest).trimmingCharacters(in: .newlines) }
        return String(rest[..<to])
    }

    /// Runs a printed `pingcli …` command line through the shell, pingcli being the built one.
    func runPrinted(_ command: String, _ sandbox: Sandbox, environment: [String: String] = [:]) -> CLIRun {
        var merged = sandbox.environment.merging(environment) { $1 }
        merged["PATH"] =
            URL(fileURLWithPath: Locations.pingcli).deletingLastPathComponent().path + ":" + (merged["PATH"] ?? "/usr/bin:/bin")
        return runProcess("/bin/sh", ["-c", command], environment: merged, timeout: 60)
    }

    @Test("next-step-client-credentials: after logout a client-credentials profile's advice names the secret option, and runs with it")
    func clientCredentialsAfterLogout() throws {
        let (emulator, sandbox) = sandboxed(try confidentialEmulator(method: "client_secret_basic"))
        let login = sandbox.run(
            ["login", "--client-credentials", "--issuer", emulator.issuer, "--client-id", "pingcli-test"],
            environment: ["PINGCLI_CLIENT_SECRET": confidentialSecret])
        #expect(login.status == 0 && sandbox.run(["logout"]).status == 0, "\(login)")
        let token = sandbox.run(["token", "--raw"])
        #expect(token.status == 4, "\(token)")
        let command = try #require(between(token.stderr, ": run ", " (or with PINGCLI_CLIENT_SECRET set)"), "\(token)")
        #expect(command == "pingcli login --profile default --client-secret-file PATH", "\(token)")
        let status = sandbox.run(["status"])
        #expect(status.stdout.contains("problem:       not logged in: run \(command) (or with PINGCLI_CLIENT_SECRET set)"), "\(status)")
        let file = sandbox.root + "/secret"
        #expect(
            FileManager.default.createFile(atPath: file, contents: Data(confidentialSecret.utf8), attributes: [.posixPermissions: 0o600]))
        let run = runPrinted(command.replacingOccurrences(of: "PATH", with: file), sandbox)
        #expect(run.status == 0, "\(run)")
        #expect(sandbox.run(["token", "--raw"]).status == 0)
    }

    @Test(
        "next-step-status-once: a bare status on a terminal shows its problem once (no second line on stderr); piped, stderr still has it; the advice runs",
        .enabled(if: DebianTools.script != nil, "script (bsdutils) is missing"))
    func statusOnce() throws {
        let (emulator, sandbox) = try loggedIn()
        #expect(sandbox.run(["logout"]).status == 0)
        let screen = onTerminal("'\(Locations.pingcli)' status", environment: sandbox.environment)
        #expect(screen.status == 4, "\(screen)")
        #expect(screen.stdout.components(separatedBy: "not logged in: run pingcli login").count == 2, "once: \(screen.stdout)")
        #expect(!screen.stdout.contains("pingcli: "), "\(screen.stdout)")
        let piped = sandbox.run(["status"])
        #expect(piped.rule == "status-problem", "\(piped)")
        #expect(piped.status == 4 && piped.stderr == "pingcli: not logged in: run pingcli login --profile default\n", "\(piped)")
        let command = try #require(between(piped.stderr, ": run "), "\(piped)")
        let run = runPrinted(command, sandbox)
        #expect(run.status == 0 && emulator.requests(to: .token).count == 2, "\(run)")
    }

    @Test(
        "next-step-journey-answers: a journey without a terminal names --answers FILE and the line to put in it; filled in, the login runs")
    func journeyAnswers() throws {
        let emulator = try AMJourneys.emulator()
        defer { emulator.stop() }
        let sandbox = Sandbox()
        let login = AMJourneys.login(emulator, tree: "Login")
        let first = sandbox.run(login)
        #expect(first.status == 4, "\(first)")
        #expect(first.rule == "journey-no-answer", "\(first)")
        #expect(first.stderr.contains("give --answers FILE, a file of mode 0600 holding the line User Name=…"), "\(first)")
        let values = ["User Name": "alice", "Password": AMJourneys.password]
        let file = sandbox.root + "/answers"
        var lines: [String] = []
        var run = first
        for _ in 0..<4 where run.status == 4 {
            let line = try #require(between(run.stderr, "the line ", "=…") ?? between(run.stderr, "add a line ", "=…"), "\(run)")
            lines.append(line + "=" + (values[line] ?? "?"))
            #expect(
                FileManager.default.createFile(
                    atPath: file, contents: Data((lines.joined(separator: "\n") + "\n").utf8), attributes: [.posixPermissions: 0o600]))
            run = sandbox.run(login + ["--answers", file])
        }
        #expect(run.status == 0 && lines.count == 2, "\(lines): \(run)")
    }

    @Test(
        "next-step-kubectl-context: setup kubectl on a kubeconfig without a current context prints kubectl commands for it (naming its cluster) that make kubectl use the user",
        KubectlSetup.needed)
    func kubectlWithoutContext() throws {
        try KubectlSetup.with { fixture, kubectl, _, sandbox, path, environment in
            try fixture.original.replacingOccurrences(of: "current-context: stand-in\n", with: "").write(
                toFile: path, atomically: false, encoding: .utf8)
            let setup = sandbox.run(fixture.arguments, environment: environment)
            #expect(setup.status == 0, "\(setup)")
            let command = try #require(between(setup.stderr, "The kubeconfig has no current context: "), "\(setup)")
            #expect(command.contains("--cluster stand-in") && command.contains("--kubeconfig \(path)"), "\(command)")
            let run = runPrinted(command, sandbox, environment: environment)
            #expect(run.status == 0, "\(run)")
            let get = runProcess(
                kubectl, ["--kubeconfig", path, "get", "--raw", KubeAPIStandIn.podsPath], environment: sandbox.environment, timeout: 120)
            #expect(get.status == 0 && get.stdout.contains("\"kind\":\"PodList\""), "\(get)")
        }
    }
}
