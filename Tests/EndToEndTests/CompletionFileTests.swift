import Foundation
import Testing

/// File names for file options and descriptions kept whole, in the real bash, zsh and fish.
@Suite("completions: file options and zsh descriptions")
struct CompletionFileTests {
    static let fileOptions = [("login", "--client-secret-file"), ("login", "--ca-file")]

    /// A sandbox with pingcli on PATH, its completion script for `shell`, and a directory holding one file.
    func setUp(_ shell: String) throws -> (Sandbox, [String: String], script: String, directory: String) {
        let (sandbox, environment, script) = try CompletionTests().scripted(shell)
        let directory = sandbox.root + "/files"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: directory + "/my-secret.txt", contents: Data("x\n".utf8))
        return (sandbox, environment, script, directory)
    }

    @Test("completion-files-bash: bash completes file names after --client-secret-file and --ca-file", arguments: fileOptions)
    func bashFiles(command: String, option: String) throws {
        let (sandbox, environment, script, directory) = try setUp("bash")
        defer { withExtendedLifetime(sandbox) {} }  // its deinit removes the files
        let run = runProcess(
            "/bin/bash",
            [
                "--norc", "--noprofile", "-c",
                "cd '\(directory)' && source '\(script)' && COMP_WORDS=(pingcli \(command) \(option) my) && COMP_CWORD=3 && _pingcli && printf '%s\\n' \"${COMPREPLY[@]}\"",
            ], environment: environment, timeout: 60)
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout == "my-secret.txt\n", "\(run)")
    }

    @Test(
        "completion-files-fish: fish completes file names after --client-secret-file and --ca-file",
        CompletionTests.needs("fish"),
        arguments: fileOptions)
    func fishFiles(command: String, option: String) throws {
        let (sandbox, environment, script, directory) = try setUp("fish")
        defer { withExtendedLifetime(sandbox) {} }  // its deinit removes the files
        let run = runProcess(
            "/usr/bin/fish", ["--no-config", "-c", "cd '\(directory)'; source '\(script)'; complete -C 'pingcli \(command) \(option) my'"],
            environment: environment, timeout: 60)
        #expect(run.status == 0, "\(run)")
        #expect(
            run.stdout.split(separator: "\n").map { $0.split(separator: "\t").first.map(String.init) ?? "" } == ["my-secret.txt"], "\(run)")
    }

    /// Types `keys` into an interactive zsh (through zpty, as a terminal would) with the completion loaded,
    /// and returns what the terminal showed once `until` appeared (a glob; the run's timeout stops a miss).
    func zshTerminal(_ keys: String, until pattern: String, environment: [String: String], script: String, directory: String) -> CLIRun {
        let driver = """
            zmodload zsh/zpty
            zpty z 'zsh -f -i'
            zpty -w z "PS1=''; cd '\(directory)'; autoload -Uz compinit; compinit -u -D; source '\(script)'; zstyle ':completion:*' list-separator '--'; LISTMAX=10000; COLUMNS=400; LINES=500"
            zpty -w -n z $'\(keys)'
            zpty -r z out '\(pattern)'
            print -r -- "$out"
            zpty -d z
            """
        return runProcess("/usr/bin/zsh", ["-f", "-c", driver], environment: environment, timeout: 60)
    }

    @Test(
        "completion-zsh-descriptions: zsh shows option and command descriptions with their colons and apostrophes",
        CompletionTests.needs("zsh"))
    func zshDescriptions() throws {
        let (sandbox, environment, script, directory) = try setUp("zsh")
        defer { withExtendedLifetime(sandbox) {} }  // its deinit removes the files
        let options = zshTerminal(
            "pingcli login --\\t", until: "*describe each HTTP request*", environment: environment, script: script, directory: directory)
        #expect(options.status == 0, "\(options)")
        #expect(options.stdout.contains("-- OpenID issuer, e.g. https://auth.pingone.com/<env-id>/as ($PINGCLI_ISSUER)"), "\(options)")
        #expect(options.stdout.contains("-- a PingOne environment's id (a UUID): the issuer is https://auth.pingone."), "\(options)")
        let commands = zshTerminal(
            "pingcli \\t", until: "*print a fresh token*ExecCredential*", environment: environment, script: script, directory: directory)
        #expect(commands.stdout.contains("-- print a fresh token: raw, json or a kubectl ExecCredential"), "\(commands)")
    }

    @Test(
        "completion-files-zsh: zsh completes file names after --client-secret-file and --ca-file",
        CompletionTests.needs("zsh"), arguments: fileOptions)
    func zshFiles(command: String, option: String) throws {
        let (sandbox, environment, script, directory) = try setUp("zsh")
        defer { withExtendedLifetime(sandbox) {} }  // its deinit removes the files
        let run = zshTerminal(
            "pingcli \(command) \(option) my\\t", until: "*my-secret.txt*", environment: environment, script: script, directory: directory)
        #expect(run.status == 0 && run.stdout.contains("\(option) my-secret.txt"), "\(run)")
    }
}
