import Foundation
import PingEmulator
import Testing

/// Runs documentation examples as written: through `/bin/bash -euo pipefail -c` (or zsh, fish) in a
/// sandbox, the built pingcli first on `PATH`, with only the documented placeholders replaced.
struct DocsShell {
    let sandbox: Sandbox
    /// Placeholder → value, applied in this order (put the longer of two overlapping ones first).
    var substitutions: [(String, String)] = []
    var environment: [String: String] = [:]

    /// The usual placeholders pointed at `emulator`: its issuer for the PingOne and example issuers, the
    /// test client for the client ids, and its protected resource (`/api/resource/…`) for the example API.
    init(_ sandbox: Sandbox, emulator: Emulator? = nil, clientID: String = "pingcli-test") {
        self.sandbox = sandbox
        guard let emulator else { return }
        substitutions = [
            ("https://auth.pingone.com/<environment-id>/as", emulator.issuer), ("https://auth.pingone.com/<env-id>/as", emulator.issuer),
            ("https://sso.example.com", emulator.issuer), ("https://api.example.com", emulator.baseURL + "/api/resource"),
            ("<client-id>", clientID), ("<worker-app-id>", clientID), ("<id>", clientID),
        ]
    }

    /// The example `key` after the substitutions.
    func script(_ key: String) throws -> String {
        var script = try DocExamples.text(key)
        for (placeholder, value) in substitutions { script = script.replacingOccurrences(of: placeholder, with: value) }
        return script
    }

    /// Runs the examples `keys` one after the other in one `shell` from the sandbox's HOME (a later one
    /// may use what an earlier one set, as `$pin`); `then` (lines that only look at what the examples
    /// left, such as `printf '%s' "$X"`) runs after them in the same shell.
    func run(_ keys: String..., shell: String = "bash", then: String = "", timeout: Double = 120) throws -> CLIRun {
        run(script: try script(keys, then: then), shell: shell, timeout: timeout)
    }

    /// The examples `keys` after the substitutions, one after the other, and then `then`.
    private func script(_ keys: [String], then: String) throws -> String {
        try keys.map { try script($0) }.joined(separator: "\n") + (then.isEmpty ? "" : "\n" + then)
    }

    private func run(script: String, shell: String, timeout: Double = 120) -> CLIRun {
        var environment = sandbox.environment.merging(self.environment) { $1 }
        environment["PATH"] = Locations.binDirectory + ":" + (environment["PATH"] ?? "")
        switch shell {
        case "fish":
            return runProcess(
                "/usr/bin/fish", ["--no-config", "-c", "cd $HOME; " + script], environment: environment, timeout: timeout)
        case "zsh":
            return runProcess("/usr/bin/zsh", ["-f", "-e", "-c", "cd \"$HOME\"\n" + script], environment: environment, timeout: timeout)
        default:
            return runProcess(
                "/bin/bash", ["-euo", "pipefail", "-c", "cd \"$HOME\"\n" + script], environment: environment, timeout: timeout)
        }
    }

    /// Runs the example and expects exit status 0.
    @discardableResult
    func succeeds(
        _ keys: String..., shell: String = "bash", then: String = "", sourceLocation: SourceLocation = #_sourceLocation
    ) throws
        -> CLIRun
    {
        let run = self.run(script: try script(keys, then: then), shell: shell)
        #expect(run.status == 0, "\(keys.joined(separator: "\n"))\n\(run)", sourceLocation: sourceLocation)
        return run
    }
}

/// Compares a documented transcript with what was really printed, after `placeholders` (pattern →
/// replacement, regular expressions) have been applied to both; names the first line that differs.
func expectSameTranscript(
    documented: String, actual: String, placeholders: [(String, String)], sourceLocation: SourceLocation = #_sourceLocation
) throws {
    func normalized(_ text: String) throws -> [Substring] {
        var result = text.trimmingCharacters(in: .whitespacesAndNewlines)
        for (pattern, replacement) in placeholders { result = result.replacing(try Regex(pattern), with: replacement) }
        return result.split(separator: "\n", omittingEmptySubsequences: false)
    }
    let expected = try normalized(documented)
    let got = try normalized(actual)
    let difference = zip(expected, got).enumerated().first { $0.element.0 != $0.element.1 }
    #expect(
        expected == got,
        "first difference at line \(difference.map { "\($0.offset + 1): docs \"\($0.element.0)\", real \"\($0.element.1)\"" } ?? "(one is longer)")\n--- real\n\(actual)",
        sourceLocation: sourceLocation)
}
