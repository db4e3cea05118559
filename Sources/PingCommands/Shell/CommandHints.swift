import PingBase

/// The words people type from other tools (gh, gcloud, kubelogin, the AWS CLI): each gets one line that
/// names pingcli's command for it, as a usage error (exit 2), instead of a bare "unknown command".
package enum CommandHints {
    /// The typed words (a command, or a command and its first operand) and pingcli's command for them.
    /// Each command line here is checked against the command table (`CommandHintTests`).
    package static let table: [(typed: String, command: String, note: String)] = [
        ("whoami", "pingcli status", "who the profile is signed in as; pingcli userinfo prints the provider's claims"),
        ("me", "pingcli userinfo", "the provider's claims about you"),
        ("auth login", "pingcli login", "sign in"),
        ("auth logout", "pingcli logout", "remove the cached tokens; --revoke revokes them too"),
        ("auth status", "pingcli status", "what is cached for the profile"),
        ("auth token", "pingcli token", "a fresh access token"),
        ("auth refresh", "pingcli token", "refreshes first when the token expires soon"),
        ("auth list", "pingcli profiles", "the profiles"),
        ("auth switch", "pingcli profiles use NAME", "make NAME the current profile"),
        ("auth setup-git", "pingcli setup git HOST", "let git sign in to HOST with the token"),
        ("auth revoke", "pingcli logout --revoke", "revoke the tokens at the server and remove them here"),
        ("auth print-access-token", "pingcli token --raw", "the access token alone"),
        ("auth print-identity-token", "pingcli token --id-token --raw", "the ID token alone"),
        ("auth", "pingcli login", "pingcli's commands are login, status, token and logout, without auth"),
        ("signin", "pingcli login", "sign in"),
        ("sign-in", "pingcli login", "sign in"),
        ("signout", "pingcli logout", "remove the cached tokens"),
        ("sign-out", "pingcli logout", "remove the cached tokens"),
        ("logoff", "pingcli logout", "remove the cached tokens"),
        ("revoke", "pingcli logout --revoke", "revoke the tokens at the server and remove them here"),
        ("refresh", "pingcli token", "refreshes first when the token expires soon"),
        ("print-access-token", "pingcli token --raw", "the access token alone"),
        ("get-token", "pingcli token --format exec-credential", "a kubectl ExecCredential, as kubelogin get-token prints"),
        ("setup-git", "pingcli setup git HOST", "let git sign in to HOST with the token"),
        ("config", "pingcli profiles", "the settings live in the profiles"),
        ("configure", "pingcli login", "login saves the profile's settings"),
        ("accounts", "pingcli profiles", "the profiles"),
        ("list", "pingcli profiles", "the profiles"),
        ("info", "pingcli status", "what is cached for the profile"),
        ("totp", "pingcli otp code NAME", "a one-time code"),
        ("2fa", "pingcli otp code NAME", "a one-time code"),
    ]

    /// The hint for `command` (and `operand`, its first word after it), when it is a word of another tool.
    package static func hint(_ command: String, operand: String?) -> PingCLIError? {
        let words = operand.map { [command + " " + $0, command] } ?? [command]
        for typed in words {
            guard let entry = table.first(where: { $0.typed == typed }) else { continue }
            return .usage("pingcli has no \"\(typed)\": run \(entry.command) (\(entry.note))", rule: .commandUnknown)
        }
        return nil
    }
}
