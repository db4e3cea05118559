import Foundation
import PingEmulator
import Testing

/// Values completed in the real bash, zsh and fish: OTP account names, device key ids, the journey trees
/// the profiles use, profile names, and only the options each `setup` target takes.
@Suite("completions offer values, in bash, zsh and fish")
struct CompletionValueShellTests {
    /// A home where a journey bound a device key (profile "default", tree "Device Binding"), another
    /// profile signed in with the tree "Login", and two OTP accounts; pingcli on PATH; the completion script
    /// of one shell written there. The sandbox stops the emulator.
    struct Home {
        let sandbox: Sandbox
        let environment: [String: String]
        let keyID: String
        let script: String
    }

    func home(_ shell: String) throws -> Home {
        let (emulator, sandbox) = sandboxed(try AMJourneys.emulator())
        let answers = AMJourneys.answersFile(sandbox, ["User Name=alice", "Password=\(AMJourneys.password)"])
        let bind = sandbox.run(AMJourneys.login(emulator, tree: "Device Binding", ["--answers", answers]))
        let other = sandbox.run(AMJourneys.login(emulator, tree: "Login", ["--answers", answers, "--profile", "script"]))
        #expect(bind.status == 0 && other.status == 0, "\(bind)\n\(other)")
        for label in ["ACME:alice", "Mail:carol"] {
            let uri = "otpauth://totp/\(label)?secret=\(OTPEndToEndTests.secret)"
            #expect(sandbox.run(["otp", "add"], input: uri + "\n").status == 0)
        }
        var environment = sandbox.environment
        environment["PATH"] = Locations.binDirectory + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        return Home(
            sandbox: sandbox, environment: environment, keyID: try #require(emulator.boundDevices().first?.keyID),
            script: try CompletionTests().script(shell, sandbox))
    }

    static let gitOnly = "--local"
    static let kubectlOnly = ["--kubeconfig", "--user"]

    /// Each setup target is offered its own options only: `git` and `kubectl` are what a shell completed
    /// after `pingcli setup git --` and `pingcli setup kubectl --`.
    static func expectOwnOptions(git: [String], kubectl: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(git.contains(gitOnly) && kubectlOnly.allSatisfy { !git.contains($0) }, "\(git)", sourceLocation: sourceLocation)
        #expect(!kubectl.contains(gitOnly) && kubectlOnly.allSatisfy { kubectl.contains($0) }, "\(kubectl)", sourceLocation: sourceLocation)
    }

    @Test(
        "completion-values-bash: bash completes OTP names (otp code/remove, login --otp), device key ids, trees, and each setup target's options"
    )
    func bash() throws {
        let home = try home("bash")
        let script = home.script
        func offered(_ words: [String]) -> [String] {
            CompletionTests().bashCompletes(words, script: script, environment: home.environment)
        }
        #expect(offered(["pingcli", "otp", "code", ""]) == ["ACME:alice", "Mail:carol"])
        #expect(offered(["pingcli", "otp", "remove", "M"]) == ["Mail:carol"])
        #expect(offered(["pingcli", "login", "--otp", ""]) == ["ACME:alice", "Mail:carol"])
        #expect(offered(["pingcli", "devices", "remove", ""]) == [home.keyID])
        #expect(offered(["pingcli", "devices", "remove", String(home.keyID.prefix(4))]) == [home.keyID])
        #expect(offered(["pingcli", "login", "--journey", ""]) == ["Device\\ Binding", "Login"])
        #expect(offered(["pingcli", "profiles", "use", ""]) == ["default", "script"])
        // As interactive bash calls it: the line split at the colon (COMP_WORDBREAKS), the reply the part after it.
        func asBash(_ line: String) -> [String] {
            let words = line.replacingOccurrences(of: ":", with: " : ").split(separator: " ", omittingEmptySubsequences: true)
            let array = words.map { "'\($0)'" }.joined(separator: " ") + (line.hasSuffix(":") ? " ''" : "")
            let count = words.count + (line.hasSuffix(":") ? 1 : 0)
            let run = runProcess(
                "/bin/bash",
                [
                    "--norc", "--noprofile", "-c",
                    "source '\(script)'; COMP_LINE='\(line)'; COMP_POINT=${#COMP_LINE}; COMP_WORDS=(\(array)); COMP_CWORD=\(count - 1); _pingcli; printf '%s\\n' \"${COMPREPLY[@]}\"",
                ], environment: home.environment, timeout: 60)
            return run.stdout.split(separator: "\n").map(String.init)
        }
        #expect(asBash("pingcli otp code ACME:al") == ["alice"])
        #expect(asBash("pingcli otp code ACME:") == ["alice"])
        #expect(asBash("pingcli login --otp Mail:") == ["carol"])
        let git = offered(["pingcli", "setup", "git", "--"])
        #expect(git.contains("--remove"), "\(git)")
        Self.expectOwnOptions(git: git, kubectl: offered(["pingcli", "setup", "kubectl", "--"]))
    }

    @Test(
        "completion-values-fish: fish completes OTP names, device key ids, trees, profiles and each setup target's options",
        CompletionTests.needs("fish"))
    func fish() throws {
        let home = try home("fish")
        func complete(_ line: String) -> [String] {
            let run = runProcess(
                "/usr/bin/fish", ["--no-config", "-c", "source '\(home.script)'; complete -C '\(line)'"], environment: home.environment,
                timeout: 60)
            #expect(run.status == 0 && run.stderr.isEmpty, "\(run)")
            return run.stdout.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        }
        #expect(complete("pingcli otp code ") == ["ACME:alice", "Mail:carol"])
        #expect(complete("pingcli login --otp ") == ["ACME:alice", "Mail:carol"])
        #expect(complete("pingcli devices remove ") == [home.keyID])
        #expect(complete("pingcli login --journey ") == ["Device Binding", "Login"])
        #expect(complete("pingcli profiles remove ") == ["default", "script"])
        Self.expectOwnOptions(git: complete("pingcli setup git --"), kubectl: complete("pingcli setup kubectl --"))
    }

    @Test(
        "completion-values-zsh: zsh (on a terminal, through zpty) completes OTP names, device key ids, trees and each setup target's options",
        CompletionTests.needs("zsh"))
    func zsh() throws {
        let home = try home("zsh")
        func shown(_ keys: String, until pattern: String) -> String {
            let run = CompletionFileTests().zshTerminal(
                keys, until: pattern, environment: home.environment, script: home.script, directory: home.sandbox.root)
            #expect(run.status == 0, "\(run)")
            return run.stdout
        }
        let accounts = shown("pingcli otp code \\t", until: "*Mail:carol*")
        #expect(accounts.contains("ACME:alice") && accounts.contains("Mail:carol"), "\(accounts)")
        #expect(shown("pingcli otp code M\\t", until: "*code Mail:carol*").contains("code Mail:carol"))
        #expect(shown("pingcli login --otp A\\t", until: "*--otp ACME:alice*").contains("--otp ACME:alice"))
        #expect(shown("pingcli devices remove \\t", until: "*remove \(home.keyID)*").contains(home.keyID))
        #expect(shown("pingcli login --journey Dev\\t", until: "*Device*Binding*").contains("Binding"))
        let git = shown("pingcli setup git --\\t", until: "*--verbose *")
        #expect(git.contains(Self.gitOnly) && !git.contains("--kubeconfig"), "\(git)")
        let kubectl = shown("pingcli setup kubectl --\\t", until: "*--verbose *")
        #expect(!kubectl.contains(Self.gitOnly) && kubectl.contains("--user"), "\(kubectl)")
    }
}
