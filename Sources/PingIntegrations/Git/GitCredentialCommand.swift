import PingBase
import PingCommandLine
import PingFlowCore
import PingLogin
import PingSession

#if canImport(Glibc)
    import Glibc
#endif

/// `pingcli git-credential get|store|erase`: a git credential helper
/// ([gitcredentials(7)](https://git-scm.com/docs/gitcredentials), the protocol in
/// [git-credential(1)](https://git-scm.com/docs/git-credential#IOFMT)) that answers with the access token
/// as the password, for git servers and artifact stores behind Ping.
package enum GitCredentialCommand {
    /// The username sent with the token when the URL names none: GitLab's and Gerrit's convention for
    /// OAuth tokens; most servers that take a token as the password ignore the username.
    package static let defaultUsername = "oauth2"

    /// The operations git asks of a credential helper (`configure`, pingcli's own, is told apart first).
    package enum Operation: String, CommandOperation {
        case get, store, erase

        package static func unknown(_ operand: String?) -> PingCLIError {
            guard let operand else {
                return .usage(
                    "git-credential needs an operation (get, store or erase): see pingcli git-credential --help", rule: .commandOperand)
            }
            return unknownOperation(operand, command: "git-credential")
        }
    }

    /// `git-credential`'s own options (`configure` has its own, `ConfigureOption`).
    package enum Option: String, OptionName {
        case username
    }

    package static let specs: [OptionSpec] =
        [
            OptionSpec(
                Option.username, valueName: "NAME",
                help: "username to send with the token when the URL has none (default: $PINGCLI_GIT_USERNAME or \(defaultUsername))"),
            MinimumTTLOption.spec,
        ] + CommonOptions.specs

    package static let help = helpText(
        usage: """
            pingcli git-credential [--profile NAME] [--username NAME] get|store|erase
              or: pingcli git-credential [--profile NAME] configure [--remove] HOST[:PORT][/PATH]...
            """,
        summary: """
            A git credential helper: git writes the request on stdin; `get` answers username= and the access
            token as password= (refreshed like pingcli token), only for the git hosts the profile serves
            (configure, or login --git-host) and only over https (http only to this machine). For any other
            request it prints nothing and exits 0, so git asks its next helper. `store` and `erase` read the
            request and do nothing: the tokens stay in pingcli's cache. `configure` adds hosts to the profile
            (--remove takes them out); pingcli status lists them. Without a usable session, `get` signs in
            first with the profile's saved login when git may prompt (GIT_TERMINAL_PROMPT not 0) and there is a
            terminal, prompts on stderr (PINGCLI_HELPER_LOGIN=never turns that off); otherwise exit 4.
            """,
        specs: specs,
        footer: """
            Example:
              pingcli git-credential --profile work configure git.example.com
              git config --global credential.https://git.example.com.helper '!pingcli git-credential --profile work'
            """)

    package static func run(_ arguments: [String], environment: Environment, context: CommandContext) throws(PingCLIError) {
        if isConfigure(arguments) { return try configure(arguments, environment: environment, context: context) }
        // git appends the operation to the configured command, so it comes last; accept it first too.
        var options = arguments
        var operand: String?
        if let last = options.last, !last.hasPrefix("-"), options.count < 2 || !takesValue(options[options.count - 2]) {
            operand = options.removeLast()
        } else if let first = options.first, !first.hasPrefix("-") {
            operand = options.removeFirst()
        }
        let parsed = try parseOptions(options, specs: specs, command: "git-credential")
        if parsed.flag(CommonOption.help) { return context.console.help(help) }
        let operation = try Operation.named(operand)
        let common = try CommonOptions(parsed, environment: environment)
        let username = try GitCredential.checkedUsername(
            parsed.value(Option.username) ?? environment["PINGCLI_GIT_USERNAME"] ?? defaultUsername)
        let request = try GitCredential.parse(GitCredential.readRequest(context.input))
        guard operation == .get else { return }  // store, erase: nothing to keep or forget
        // Not one of the profile's git hosts (or not https): nothing at all, so git asks its next helper.
        guard let saved = try StoreAdvice.worded(context.store.readProfile(common.profile)), GitCredential.serves(request, profile: saved)
        else { return }
        let minimumTTL = try MinimumTTLOption.value(parsed)
        // When git may prompt and there is a terminal, no usable session means signing in first (HelperSignIn).
        let signIn = try HelperSignIn(caller: .git, environment: environment, context: common.applied(to: context))
        let result = try signIn.fresh(TokenProvider(profile: common.profile, context: signIn.context.forSession), minimumTTL: minimumTTL)
        // The profile the tokens were verified against (its git hosts are bound to the cache) decides.
        guard GitCredential.serves(request, profile: result.profile) else { return }
        if let warning = result.warning { context.console.err("pingcli: warning: \(warning)") }
        var lines = ["username=\(request["username"] ?? username)", "password=\(result.tokens.accessToken.value)"]
        if let expiresAt = result.tokens.expiresAt, expiresAt.isFinite { lines.append("password_expiry_utc=\(Int(expiresAt))") }
        context.console.out(lines.joined(separator: "\n"))
    }

    /// Whether the first argument that is neither an option nor an option's value is `configure`
    /// (so `--profile configure get` is still a `get`).
    package static func isConfigure(_ arguments: [String]) -> Bool {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if !argument.hasPrefix("-") { return argument == "configure" }
            index += takesValue(argument) ? 2 : 1
        }
        return false
    }

    package static func takesValue(_ argument: String) -> Bool {
        specs.contains { $0.takesValue && "--" + $0.name == argument }
    }
}
