import PingBase

/// pingcli(1) in roff, generated from the command table (`pingcli --help-man`), so the manual lists
/// exactly the commands and options the parser accepts.
package enum ManPage {
    /// roff-safe text: backslashes escaped, dashes as `\-`, and no line that starts a request.
    package static func escaped(_ text: String) -> String {
        let body = text.replacingAll("\\", with: "\\e").replacingAll("-", with: "\\-")
        return body.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix(".") || $0.hasPrefix("'") ? "\\&" + $0 : String($0) }
            .joined(separator: "\n")
    }

    /// The usage line and the summary paragraph of a command's help text (`helpText`'s layout:
    /// `Usage: …`, a blank line, the summary, a blank line, `Options:`).
    package static func parts(ofHelp help: String) -> (usage: String, summary: String) {
        let head = help.splitText(separator: "\n\nOptions:\n", omittingEmptySubsequences: false).first.map(String.init) ?? help
        let paragraphs = head.splitText(separator: "\n\n", omittingEmptySubsequences: false).map(String.init)
        let usage = String((paragraphs.first ?? "").dropFirst("Usage: ".count))
        return (usage, paragraphs.dropFirst().joined(separator: "\n\n").split(separator: "\n").joined(separator: " "))
    }

    /// The whole page: its name and synopsis, the commands and their options, the exit statuses, the
    /// environment, the files and examples.
    package static func render() -> String {
        (head + commands + exitStatus + environment + filesAndExamples).joined(separator: "\n")
    }

    /// NAME, SYNOPSIS and DESCRIPTION.
    private static var head: [String] {
        [
            ".TH PINGCLI 1 \"\" \"pingcli \(PingCLIVersion.current)\" \"User Commands\"",
            ".SH NAME",
            "pingcli \\- sign in to PingOne, PingFederate or any OpenID provider, and hand tokens to scripts",
            ".SH SYNOPSIS",
            ".B pingcli",
            "[\\fB\\-\\-profile\\fR \\fINAME\\fR] [\\fB\\-\\-verbose\\fR] \\fICOMMAND\\fR [\\fIOPTIONS\\fR]",
            ".br",
            ".B pingcli",
            "\\fB\\-\\-version\\fR | \\fBhelp\\fR [\\fICOMMAND\\fR] | \\fICOMMAND\\fR \\fB\\-\\-help\\fR",
            ".SH DESCRIPTION",
            escaped(
                "pingcli signs a person in to an OpenID provider the way RFC 8252 says native apps must (the system browser, a one-shot listener on 127.0.0.1, PKCE S256, state), keeps the tokens encrypted on disk, and hands fresh tokens to scripts, kubectl and git. Profiles are independent sessions: --profile NAME, else $PINGCLI_PROFILE, else the current profile (pingcli profiles use NAME), else default."
            ),
        ]
    }

    /// COMMANDS: each command's usage and summary, and its options, from the command table.
    private static var commands: [String] {
        var lines = [".SH COMMANDS"]
        for command in PingCLI.commandTable {
            let (usage, summary) = parts(ofHelp: command.help())
            lines += [
                ".SS \"pingcli \(command.name)\"", escaped(command.summary) + ".", ".PP", "\\fB" + escaped(usage) + "\\fR", ".PP",
                escaped(summary),
            ]
            for spec in command.specs {
                lines += [
                    ".TP", "\\fB\\-\\-\(escaped(spec.name))\\fR" + (spec.valueName.map { " \\fI\(escaped($0))\\fR" } ?? ""),
                    escaped(spec.help),
                ]
            }
        }
        return lines
    }

    /// EXIT STATUS, as docs/exit-codes.md lists them.
    private static var exitStatus: [String] {
        [
            ".SH EXIT STATUS",
            ".TP", "0", "success",
            ".TP", "1", escaped("the operation failed (a refused request, a broken rule, a key command or file problem)"),
            ".TP", "2", "usage error",
            ".TP", "3", escaped("the server could not be reached (network, DNS, TLS, proxy, timeout, 5xx)"),
            ".TP", "4", escaped("login required: not logged in, or the session expired"),
            ".TP", "5", escaped("the server's TLS key matches none of the profile's --pin values"),
            ".TP", "6", escaped("pingcli api --fail: the API answered with a status outside 2xx"),
            ".TP", "130", escaped("interrupted (Ctrl-C)"),
        ]
    }

    /// ENVIRONMENT, from the table of variables pingcli reads.
    private static var environment: [String] {
        [".SH ENVIRONMENT"] + EnvironmentVariables.table.flatMap { names, meaning in [".TP", escaped(names), escaped(meaning)] }
    }

    /// FILES, EXAMPLES and SEE ALSO.
    private static var filesAndExamples: [String] {
        [
            ".SH FILES",
            ".TP", "$XDG_CONFIG_HOME/pingcli/profiles/NAME/",
            escaped(
                "a profile: profile.json (its settings), tokens.enc (encrypted tokens; after a logout, a sealed empty record), tokens.lock, refresh.state, jwks.json"
            ),
            ".TP", "$XDG_CONFIG_HOME/pingcli/current\\-profile", "the current profile",
            ".TP", "$XDG_DATA_HOME/pingcli/key", "the key that encrypts the token caches (file store; never under $XDG_CONFIG_HOME)",
            ".TP", "$XDG_DATA_HOME/pingcli/generations/NAME",
            escaped("the newest cache generation written for a profile (an older cache is refused)"),
            ".TP", "$XDG_CONFIG_HOME/pingcli/otp/accounts.enc",
            escaped("the OTP accounts (pingcli otp), encrypted under the cache key (and sealed to the TPM when one is reachable)"),
            ".TP", "$XDG_DATA_HOME/pingcli/otp\\-generation",
            escaped("the newest OTP store generation written (an older store is refused)"),
            ".TP", "$XDG_CONFIG_HOME/pingcli/devices/KEY_ID.key",
            escaped("a device key a journey bound (pingcli devices): sealed under the cache key, or a TPM's wrapped blob"),
            ".SH EXAMPLES",
            ".nf",
            escaped("pingcli login --issuer https://auth.pingone.com/ENV-ID/as --client-id ID"),
            escaped("curl -H \"Authorization: Bearer $(pingcli token)\" https://api.example.com/me"),
            escaped("pingcli git-credential configure git.example.com"),
            escaped("git config --global credential.https://git.example.com.helper '!pingcli git-credential'"),
            escaped("pingcli setup kubectl --profile k8s"),
            ".fi",
            ".SH SEE ALSO",
            "\\fBkubectl\\fR(1), \\fBgitcredentials\\fR(7), \\fBcurl\\fR(1)",
        ]
    }
}
