import Foundation
import Testing

/// `pingcli completion bash|zsh|fish` run by the real shells, and `pingcli --help-man` rendered by man.
@Suite("completions and the man page, end to end")
struct CompletionTests {
    /// A sandbox with profiles "alpha" and "beta" (settings files only) and pingcli on PATH.
    func sandboxWithProfiles() throws -> (Sandbox, [String: String]) {
        let sandbox = Sandbox()
        for name in ["alpha", "beta"] {
            let directory = sandbox.root + "/config/pingcli/profiles/" + name
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try "{}\n".write(toFile: directory + "/profile.json", atomically: true, encoding: .utf8)
        }
        var environment = sandbox.environment
        environment["PATH"] = Locations.binDirectory + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        return (sandbox, environment)
    }

    /// The completion script for `shell`, saved in the sandbox (a file to source, not to run).
    func script(_ shell: String, _ sandbox: Sandbox) throws -> String {
        let run = sandbox.run(["completion", shell])
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run)")
        let path = sandbox.root + "/completion." + shell
        try run.stdout.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A sandbox with profiles, its environment, and the completion script for `shell` saved in it.
    func scripted(_ shell: String) throws -> (Sandbox, [String: String], String) {
        let (sandbox, environment) = try sandboxWithProfiles()
        return (sandbox, environment, try script(shell, sandbox))
    }

    /// The trait of a test that runs `shell` (zsh or fish, which `make deps` installs).
    static func needs(_ shell: String) -> ConditionTrait {
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/" + shell), "\(shell) is missing: run make deps")
    }

    /// The options a command's --help lists.
    func helpOptions(_ command: String) -> [String] {
        Sandbox().run([command, "--help"]).stdout.components(separatedBy: "\nOptions:\n").last!.split(separator: "\n")
            .filter { $0.hasPrefix("  --") }.compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    static let commands = ["login", "token", "userinfo", "status", "logout", "profiles", "git-credential", "completion"]

    /// What bash's completion function offers for the words typed so far (the last one being completed).
    func bashCompletes(_ words: [String], script: String, environment: [String: String]) -> [String] {
        let array = words.map { "'\($0)'" }.joined(separator: " ")
        let run = runProcess(
            "/bin/bash",
            [
                "--norc", "--noprofile", "-c",
                "source '\(script)'; COMP_WORDS=(\(array)); COMP_CWORD=\(words.count - 1); _pingcli; printf '%s\\n' \"${COMPREPLY[@]}\"",
            ],
            environment: environment, timeout: 60)
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run)")
        return run.stdout.split(separator: "\n").map(String.init)
    }

    @Test("completion-bash: the completion function offers the commands, each command's options, values and profile names")
    func bash() throws {
        let (sandbox, environment) = try sandboxWithProfiles()
        let path = try script("bash", sandbox)
        let first = bashCompletes(["pingcli", ""], script: path, environment: environment)
        for command in Self.commands + ["help", "--profile", "--version"] { #expect(first.contains(command), "\(first)") }
        for command in Self.commands {
            let offered = bashCompletes(["pingcli", command, "--"], script: path, environment: environment)
            let listed = helpOptions(command)
            #expect(!listed.isEmpty && Set(offered) == Set(listed), "\(command): completion \(offered), --help \(listed)")
        }
        #expect(
            bashCompletes(["pingcli", "token", "--format", ""], script: path, environment: environment) == [
                "raw", "json", "exec-credential", "summary",
            ])
        #expect(bashCompletes(["pingcli", "tok"], script: path, environment: environment) == ["token"])
        #expect(bashCompletes(["pingcli", "--profile", ""], script: path, environment: environment) == ["alpha", "beta"])
        #expect(bashCompletes(["pingcli", "--profile", "beta", "sta"], script: path, environment: environment) == ["status"])
        #expect(bashCompletes(["pingcli", "status", "--profile", "a"], script: path, environment: environment) == ["alpha"])
        #expect(bashCompletes(["pingcli", "profiles", "use", ""], script: path, environment: environment) == ["alpha", "beta"])
        #expect(bashCompletes(["pingcli", "git-credential", "g"], script: path, environment: environment) == ["get"])
    }

    @Test(
        "completion-zsh: the script loads in zsh with compinit and registers _pingcli",
        Self.needs("zsh"))
    func zsh() throws {
        let (sandbox, environment, path) = try scripted("zsh")
        let run = runProcess(
            "/usr/bin/zsh",
            [
                "-f", "-c",
                "autoload -Uz compinit && compinit -u -d '\(sandbox.root)/zcompdump' && source '\(path)' && print -r -- $_comps[pingcli] && whence -w _pingcli_profiles",
            ],
            environment: environment, timeout: 60)
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run)")
        #expect(run.stdout == "_pingcli\n_pingcli_profiles: function\n", "\(run)")
    }

    @Test(
        "completion-fish: the script loads in fish, and fish completes commands, option values and profile names with it",
        Self.needs("fish"))
    func fish() throws {
        let (sandbox, environment) = try sandboxWithProfiles()
        let path = try script("fish", sandbox)
        func complete(_ line: String) -> [String] {
            let run = runProcess(
                "/usr/bin/fish", ["--no-config", "-c", "source '\(path)'; complete -C '\(line)'"], environment: environment, timeout: 60)
            #expect(run.status == 0 && run.stderr.isEmpty, "\(run)")
            return run.stdout.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        }
        let commands = complete("pingcli ")
        for command in Self.commands + ["help"] { #expect(commands.contains(command), "\(commands)") }
        #expect(complete("pingcli token --format ") == ["exec-credential", "json", "raw", "summary"])
        #expect(complete("pingcli --profile ") == ["alpha", "beta"])
        #expect(Set(complete("pingcli logout --")).isSuperset(of: helpOptions("logout")))
    }

    @Test("man-page: man -l renders pingcli(1) with every command and option; --help-man needs no HOME")
    func manPage() throws {
        let generated = runProcess(Locations.pingcli, ["--help-man"], environment: [:], timeout: 30)
        #expect(generated.status == 0 && generated.stdout.hasPrefix(".TH PINGCLI 1"), "\(generated)")
        let sandbox = Sandbox()
        let path = sandbox.root + "/pingcli.1"
        try generated.stdout.write(toFile: path, atomically: true, encoding: .utf8)
        let run = runProcess(
            "/usr/bin/man", ["-l", path],
            environment: ["PATH": "/usr/bin:/bin", "MANPAGER": "cat", "MANWIDTH": "200", "LANG": "C.UTF-8", "HOME": sandbox.root],
            timeout: 60)
        #expect(run.status == 0, "\(run)")
        #expect(!run.stderr.contains("warning"), "\(run)")
        #expect(run.stdout.contains("PINGCLI(1)"))
        for command in Self.commands {
            #expect(run.stdout.contains("pingcli \(command)\n"), "\(command) has its section")
            for option in helpOptions(command) { #expect(run.stdout.contains(option), "\(command) \(option)") }
        }
    }
}
