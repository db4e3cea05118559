import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Runs `command` (a shell command line) on a pseudo-terminal with `script`; stdout and stderr arrive
/// together on the run's stdout, with CR LF line ends.
func onTerminal(_ command: String, environment: [String: String], input: String = "") -> CLIRun {
    let quoted = command.replacingOccurrences(of: "'", with: "'\\''")
    return runProcess(
        "/bin/sh", ["-c", "printf '%s' \"$INPUT\" | script -qec '\(quoted)' /dev/null"],
        environment: environment.merging(["INPUT": input]) { $1 }, timeout: 60)
}

@Suite("the command line as gh does it: bare pingcli, -v, help width")
struct CommandLineManners {
    @Test("bare-pingcli: pingcli alone prints the overview on stdout and exits 0, as gh does")
    func bare() {
        let run = Sandbox().run([])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.hasPrefix("pingcli \(PingCLIVersionForTests.current): sign in"), "\(run.stdout)")
        #expect(run.stdout.contains("Usage: pingcli <command> [options]") && run.stderr.isEmpty, "\(run)")
    }

    @Test("dash-v: pingcli -v is a usage error (exit 2) that suggests --version, on stderr only")
    func dashV() {
        let run = Sandbox().run(["-v"])
        #expect(run.status == 2 && run.stdout.isEmpty, "\(run)")
        #expect(run.rule == "option-unknown", "\(run)")
        #expect(run.stderr == "pingcli: unknown option -v (did you mean pingcli --version, or --verbose after a command?)\n", "\(run)")
    }

    @Test(
        "help-width-80: off a terminal every command's --help (and the overview) is wrapped to 80 columns, continuations under the description column",
        arguments: [
            "login", "token", "userinfo", "api", "dpop-proof", "status", "logout", "profiles", "key", "git-credential", "setup",
            "completion",
        ])
    func helpWidth(command: String) {
        let run = Sandbox().run([command, "--help"])
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run)")
        // Only a single word longer than the room left may pass the width.
        for line in run.stdout.split(separator: "\n") where line.count > 80 {
            #expect(!line.trimmingCharacters(in: .whitespaces).contains(" "), "longer than 80 columns: \(line)")
        }
        let overview = Sandbox().run(["--help"])
        #expect(overview.stdout.split(separator: "\n").allSatisfy { $0.count <= 80 }, "\(overview.stdout)")
    }

    @Test(
        "help-width-terminal: on a terminal 60 columns wide, login --help fits in 60 columns",
        .enabled(if: DebianTools.script != nil, "script (bsdutils) is missing"))
    func helpOnNarrowTerminal() {
        let sandbox = Sandbox()
        let run = onTerminal("stty cols 60; '\(Locations.pingcli)' login --help", environment: sandbox.environment)
        #expect(run.status == 0, "\(run)")
        let lines = run.stdout.replacingOccurrences(of: "\r", with: "").split(separator: "\n")
        #expect(lines.count > 40, "\(run.stdout)")
        for line in lines where line.count > 60 {
            #expect(!line.trimmingCharacters(in: .whitespaces).contains(" "), "longer than 60 columns: \(line)")
        }
        #expect(lines.contains { $0.hasPrefix("  --client-secret-file PATH") }, "\(run.stdout)")
    }
}

@Suite("a client secret on standard input")
struct SecretOnStandardInput {
    @Test(
        "secret-stdin: --client-secret-file - reads the secret from a pipe (and /dev/stdin means the same); the secret is in no output",
        arguments: ["-", "/dev/stdin"])
    func fromPipe(path: String) throws {
        let (emulator, sandbox) = sandboxed(try confidentialEmulator(method: "client_secret_basic"))
        var environment = sandbox.environment
        environment["SECRET"] = confidentialSecret
        let run = runProcess(
            "/bin/sh",
            [
                "-c",
                "printf '%s\\n' \"$SECRET\" | \"$0\" login --client-credentials --client-secret-file \"$1\" --issuer \"$2\" --client-id pingcli-test",
                Locations.pingcli, path, emulator.issuer,
            ], environment: environment, timeout: 60)
        #expect(run.status == 0, "\(run)")
        #expect(emulator.requests(to: .token).count == 1)
        #expect(!run.stdout.contains(confidentialSecret) && !run.stderr.contains(confidentialSecret))
        #expect(sandbox.run(["token", "--raw"]).stdout == emulator.newestTokenLine)
    }

    @Test("secret-stdin-empty: an empty standard input is a usage error (exit 2) that says to pipe the secret in; no request is sent")
    func empty() throws {
        let (emulator, sandbox) = sandboxed(try confidentialEmulator(method: "client_secret_basic"))
        let run = sandbox.run([
            "login", "--client-credentials", "--client-secret-file", "-", "--issuer", emulator.issuer, "--client-id", "pingcli-test",
        ])
        #expect(run.status == 2 && run.stdout.isEmpty, "\(run)")
        #expect(run.rule == "client-secret-input", "\(run)")
        #expect(
            run.stderr == "pingcli: --client-secret-file -: standard input was empty: pipe in the client secret (on one line)\n", "\(run)")
        #expect(emulator.requests(to: .token).isEmpty)
    }

    @Test(
        "secret-stdin-terminal: from a terminal --client-secret-file - is refused (it would echo the secret): exit 2, pipe it or give a file",
        .enabled(if: DebianTools.script != nil, "script (bsdutils) is missing"))
    func terminal() throws {
        let (emulator, sandbox) = sandboxed(try confidentialEmulator(method: "client_secret_basic"))
        let run = onTerminal(
            "'\(Locations.pingcli)' login --client-credentials --client-secret-file - --issuer \(emulator.issuer) --client-id pingcli-test",
            environment: sandbox.environment)
        #expect(run.status == 2, "\(run)")
        #expect(run.stdout.contains("standard input is a terminal (it would echo the secret): pipe it in"), "\(run)")
        #expect(emulator.requests(to: .token).isEmpty)
    }
}

@Suite("the browser launcher stays quiet")
struct QuietBrowserLauncher {
    /// A launcher that prints seven lines, as xdg-open does without a desktop, and fails.
    func noisyLauncher(_ sandbox: Sandbox) throws -> String {
        let path = sandbox.root + "/noisy-open"
        var script = "#!/bin/sh\necho 'launcher stdout line'\n"
        for line in 1...7 { script += "echo 'launcher noise \(line)' >&2\n" }
        script += "exit 3\n"
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(chmod(path, 0o755) == 0)
        return path
    }

    @Test(
        "launcher-quiet: a failing launcher's output never reaches the terminal, one line says it failed; under --verbose its text is shown, prefixed"
    )
    func failingLauncher() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        let launcher = try noisyLauncher(sandbox)
        let arguments = ["login", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--timeout", "2"]
        let run = sandbox.run(arguments, environment: ["PINGCLI_BROWSER": launcher])
        #expect(run.status == 1 && run.stdout.isEmpty, "\(run)")
        #expect(run.rule == "login-timeout", "\(run)")
        #expect(
            run.stderr.contains("pingcli: the browser launcher exited with status 3: open the URL above in a browser yourself\n"), "\(run)")
        #expect(!run.stderr.contains("launcher noise") && !run.stderr.contains("launcher stdout line"), "\(run)")
        let verbose = sandbox.run(arguments + ["--verbose"], environment: ["PINGCLI_BROWSER": launcher])
        #expect(verbose.status == 1 && verbose.stdout.isEmpty, "\(verbose)")
        #expect(verbose.stderr.contains("  browser launcher: launcher noise 7\n"), "\(verbose)")
        #expect(verbose.rule == "login-timeout", "\(verbose)")
        #expect(verbose.stderr.contains("  browser launcher: launcher stdout line\n"), "\(verbose)")
    }

    @Test(
        "no-display-no-launcher: without DISPLAY or WAYLAND_DISPLAY, outside WSL and SSH, login runs no launcher and says why in one line; BROWSER set runs it",
        arguments: [false, true])
    func noDisplay(browserNamed: Bool) throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        var environment = ["DISPLAY": ""]
        if browserNamed { environment["BROWSER"] = Locations.support + "/xdg-open" }
        let run = sandbox.run(
            ["login", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--timeout", browserNamed ? "30" : "1"],
            environment: environment)
        if browserNamed {
            #expect(run.status == 0, "\(run)")
            #expect(!sandbox.browserLog.isEmpty, "BROWSER was run")
        } else {
            #expect(run.status == 1 && run.stdout.isEmpty, "\(run)")
            #expect(
                run.stderr.contains(
                    "pingcli: there is no display here (DISPLAY and WAYLAND_DISPLAY are unset), so no browser is opened (PINGCLI_BROWSER or BROWSER names one)\n"
                ), "\(run)")
            #expect(sandbox.browserLog.isEmpty, "xdg-open was not run")
            #expect(run.stderr.contains("/authorize?"), "the URL is shown")
            #expect(run.rule == "login-timeout", "\(run)")
        }
    }

    @Test(
        "paste-prompt-terminal: the paste prompt appears when standard input is a terminal",
        .enabled(if: DebianTools.script != nil, "script (bsdutils) is missing"))
    func pastePromptOnTerminal() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        let run = onTerminal(
            "'\(Locations.pingcli)' login --no-browser --issuer \(emulator.issuer) --client-id pingcli-test --timeout 1",
            environment: sandbox.environment)
        #expect(run.status == 1, "\(run)")
        #expect(run.stdout.contains("paste it here and press Enter"), "\(run)")
    }
}

@Suite("completions: values and options once")
struct CompletionValueTests {
    @Test(
        "completion-values: bash completes every option with a fixed set of values (--region, api --method, key --to, --dpop, --client-assertion-audience, --format, --prompt), files after --data @, and offers no option twice but a repeatable one"
    )
    func bashValues() throws {
        let completion = CompletionTests()
        let (sandbox, environment, path) = try completion.scripted("bash")
        func offered(_ words: [String]) -> [String] { completion.bashCompletes(words, script: path, environment: environment) }
        #expect(offered(["pingcli", "login", "--region", ""]) == ["na", "eu", "ca", "ap", "au", "sg"])
        #expect(
            offered(["pingcli", "api", "--method", "P"]) == ["POST", "PUT", "PATCH"], "\(offered(["pingcli", "api", "--method", "P"]))")
        #expect(offered(["pingcli", "dpop-proof", "--method", "DE"]) == ["DELETE"])
        #expect(offered(["pingcli", "key", "migrate", "--to", ""]) == ["keyring", "file"])
        #expect(
            offered(["pingcli", "login", "--dpop", ""]) == ["ES256", "EdDSA", "PS256", "RS256"],
            "\(offered(["pingcli", "login", "--dpop", ""]))")
        #expect(offered(["pingcli", "login", "--client-assertion-audience", ""]) == ["endpoint", "token-endpoint", "issuer"])
        #expect(offered(["pingcli", "token", "--format", "e"]) == ["exec-credential"])
        // --data @FILE completes file names after the @, in the current directory.
        try "{}".write(toFile: sandbox.root + "/body.json", atomically: true, encoding: .utf8)
        var inRoot = environment
        inRoot["PWD"] = sandbox.root
        let files = runProcess(
            "/bin/bash",
            [
                "--norc", "--noprofile", "-c",
                "cd '\(sandbox.root)' && source '\(path)'; COMP_WORDS=(pingcli api --data @bo); COMP_CWORD=3; _pingcli; printf '%s\\n' \"${COMPREPLY[@]}\"",
            ], environment: inRoot, timeout: 60)
        #expect(files.stdout == "@body.json\n", "\(files)")
        // Once typed, --timeout is not offered again; --param (repeatable) is.
        let again = offered(["pingcli", "login", "--timeout", "30", "--param", "a=b", "--"])
        #expect(!again.contains("--timeout") && again.contains("--param") && again.contains("--issuer"), "\(again)")
    }

    @Test(
        "completion-once-zsh-fish: zsh marks repeatable options with * and completes --dpop's values; fish offers an option only when not yet given"
    )
    func zshAndFish() {
        let zsh = Sandbox().run(["completion", "zsh"]).stdout
        #expect(zsh.contains("'*--param[") && zsh.contains("'--timeout["), "\(zsh.prefix(200))")
        #expect(zsh.contains("::dpop:(ES256 EdDSA PS256 RS256)'"), "zsh --dpop")
        #expect(zsh.contains(":REGION:(na eu ca ap au sg)'"), "zsh --region")
        let fish = Sandbox().run(["completion", "fish"]).stdout
        #expect(fish.contains("-n 'not __fish_contains_opt timeout; or test (commandline -opc)[-1] = --timeout' -l timeout"), "fish")
        #expect(fish.contains("-l param") && !fish.contains("__fish_contains_opt param"), "fish --param is repeatable")
        #expect(fish.contains("-l to -x -a 'keyring file'"), "fish --to")
    }
}

@Suite("waits: a per-request limit, and the time left on a terminal")
struct WaitTests {
    @Test(
        "http-timeout: --http-timeout 1 and PINGCLI_HTTP_TIMEOUT=1 end a request the server sits on (exit 3, the server named); bad values are usage errors",
        arguments: ["flag", "environment"])
    func httpTimeout(way: String) throws {
        let (emulator, sandbox) = try loggedIn()
        emulator.faults = Faults(delays: [.userinfo: 60])
        // Without the limit the default 30 s would outlast the harness's 20 s.
        let run =
            way == "flag"
            ? sandbox.run(["userinfo", "--http-timeout", "1"], timeout: 20)
            : sandbox.run(["userinfo"], environment: ["PINGCLI_HTTP_TIMEOUT": "1"], timeout: 20)
        #expect(run.status == 3 && run.stdout.isEmpty, "\(run)")
        #expect(run.stderr.contains("could not reach the userinfo endpoint at 127.0.0.1:"), "\(run)")
        #expect(run.rule == "server-unreachable", "\(run)")
        let zero = sandbox.run(["userinfo", "--http-timeout", "0"])
        #expect(zero.rule == "seconds-gate", "\(zero)")
        #expect(
            zero.status == 2 && zero.stderr == "pingcli: --http-timeout must be a whole number of seconds above 0, not \"0\"\n", "\(zero)")
        let junk = sandbox.run(["token", "--raw"], environment: ["PINGCLI_HTTP_TIMEOUT": "soon"])
        #expect(junk.rule == "seconds-gate", "\(junk)")
        #expect(
            junk.status == 2 && junk.stderr == "pingcli: PINGCLI_HTTP_TIMEOUT must be a whole number of seconds above 0, not \"soon\"\n",
            "\(junk)")
    }

    @Test(
        "time-left-terminal: on a terminal the device wait and the browser wait show the time left on one rewritten line; off a terminal nothing of it, and never on stdout",
        .enabled(if: DebianTools.script != nil, "script (bsdutils) is missing"))
    func timeLeft() throws {
        // Nobody approves the code and nobody signs in: launchers that open nothing, fresh sandboxes.
        let (emulator, sandbox) = try emulatorAndSandbox {
            $0.deviceInterval = 1
            $0.deviceRequiresApproval = true
        }
        defer { emulator.stop() }
        let device = "'\(Locations.pingcli)' login --device --no-browser --issuer \(emulator.issuer) --client-id pingcli-test --timeout 4"
        let onTerm = onTerminal(device, environment: sandbox.environment)
        #expect(onTerm.status == 1, "\(onTerm)")
        #expect(onTerm.stdout.contains("\r\u{1B}[KWaiting for the sign-in to be approved: "), "\(onTerm)")
        #expect(onTerm.stdout.contains("s left (Ctrl-C to cancel)"), "\(onTerm)")
        let offTerm = sandbox.run(
            ["login", "--device", "--no-browser", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--timeout", "4"])
        #expect(offTerm.status == 1 && offTerm.stdout.isEmpty, "\(offTerm)")
        #expect(offTerm.rule == "login-timeout", "\(offTerm)")
        #expect(!offTerm.stderr.contains(" left (Ctrl-C") && !offTerm.stderr.contains("\u{1B}"), "\(offTerm)")

        // A launcher that opens nothing: the browser never comes back within --timeout 3.
        let browser = "'\(Locations.pingcli)' login --issuer \(emulator.issuer) --client-id pingcli-test --timeout 3"
        let other = Sandbox()
        let waited = onTerminal(browser, environment: other.environment.merging(["PINGCLI_BROWSER": "true"]) { $1 })
        #expect(waited.status == 1, "\(waited)")
        #expect(
            waited.stdout.contains("\r\u{1B}[KWaiting for the browser: ") && waited.stdout.contains("s left (Ctrl-C to cancel)"),
            "\(waited)")
        let plain = other.run(
            ["login", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--timeout", "3"],
            environment: ["PINGCLI_BROWSER": "true"])
        #expect(plain.rule == "login-timeout", "\(plain)")
        #expect(plain.status == 1 && plain.stdout.isEmpty && !plain.stderr.contains(" left (Ctrl-C"), "\(plain)")
    }
}

@Suite("waits: a slow request on a terminal")
struct SlowRequestNoticeTests {
    @Test(
        "slow-request-notice: on a terminal a request that takes seconds names the URL it waits for and the seconds elapsed, then erases the line; off a terminal nothing",
        .enabled(if: DebianTools.script != nil, "script (bsdutils) is missing"))
    func slowDiscovery() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        emulator.faults = Faults(delays: [.discovery: 3])
        let command = "'\(Locations.pingcli)' login --device --no-browser --issuer \(emulator.issuer) --client-id pingcli-test --timeout 1"
        let run = onTerminal(command, environment: sandbox.environment)
        #expect(run.stdout.contains("\r\u{1B}[KWaiting for \(emulator.issuer)/.well-known/openid-configuration (1 s)…"), "\(run)")
        let after = run.stdout.components(separatedBy: "/.well-known/openid-configuration (").last ?? ""
        #expect(after.contains(" s)…\r\u{1B}[K") && !after.contains("\r\u{1B}[KWaiting for http"), "erased when the answer comes: \(run)")
        let plain = sandbox.run([
            "login", "--device", "--no-browser", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--timeout", "1",
        ])
        #expect(plain.status == 1, "\(plain)")  // the rule: see offTerm in timeLeftLine
        #expect(plain.stdout.isEmpty && !plain.stderr.contains("Waiting for http"), "\(plain)")
    }
}
