import PingBase
import PingFlows
import PingState

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

    package static let specs: [OptionSpec] =
        [
            OptionSpec(
                name: "username", valueName: "NAME",
                help: "username to send with the token when the URL has none (default: $PINGCLI_GIT_USERNAME or \(defaultUsername))"),
            MinimumTTLOption.spec,
        ] + CommonOptions.specs

    package static let help = helpText(
        usage: """
            pingcli git-credential [--profile NAME] [--username NAME] get|store|erase
                   pingcli git-credential [--profile NAME] configure [--remove] HOST[:PORT][/PATH]...
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
            Example: pingcli git-credential --profile work configure git.example.com
                     git config --global credential.https://git.example.com.helper '!pingcli git-credential --profile work'
            """)

    package static func run(_ arguments: [String], environment: Environment, context: FlowContext) throws(PingCLIError) {
        if isConfigure(arguments) { return try configure(arguments, environment: environment, context: context) }
        // git appends the operation to the configured command, so it comes last; accept it first too.
        var options = arguments
        var operation: String?
        if let last = options.last, !last.hasPrefix("-"), options.count < 2 || !takesValue(options[options.count - 2]) {
            operation = options.removeLast()
        } else if let first = options.first, !first.hasPrefix("-") {
            operation = options.removeFirst()
        }
        let parsed = try parseOptions(options, specs: specs, command: "git-credential")
        if parsed.flag("help") { return context.console.help(help) }
        guard let operation else {
            throw .usage(
                "git-credential needs an operation (get, store or erase): see pingcli git-credential --help", rule: .commandOperand)
        }
        guard ["get", "store", "erase"].contains(operation) else {
            throw .usage(
                "unknown git-credential operation \"\(displaySafe(operation, limit: 40))\": use get, store or erase (see pingcli git-credential --help)",
                rule: .commandOperand
            )
        }
        let common = try CommonOptions(parsed, environment: environment)
        let username = try GitCredential.checkedUsername(parsed.value("username") ?? environment["PINGCLI_GIT_USERNAME"] ?? defaultUsername)
        let request = try GitCredential.parse(GitCredential.readRequest(context.input))
        guard operation == "get" else { return }  // store, erase: nothing to keep or forget
        // Not one of the profile's git hosts (or not https): nothing at all, so git asks its next helper.
        guard let saved = try context.store.loadProfile(common.profile), GitCredential.serves(request, profile: saved) else { return }
        let minimumTTL = try MinimumTTLOption.value(parsed)
        // When git may prompt and there is a terminal, no usable session means signing in first (HelperSignIn).
        let signIn = try HelperSignIn(caller: .git, environment: environment, context: common.applied(to: context))
        let result = try signIn.fresh(TokenProvider(profile: common.profile, context: signIn.context), minimumTTL: minimumTTL)
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

/// The gate for git's credential requests: bounded, strictly `key=value` lines, nothing that could
/// become a second line of the answer.
package enum GitCredential {
    /// More than any real request (git sends a handful of short attributes).
    package static let maximumRequestBytes = 64 * 1024

    /// Reads the request from `descriptor` up to its blank line or the end of input, at most 64 KiB.
    package static func readRequest(_ descriptor: Int32) throws(PingCLIError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !bytes.suffix(2).elementsEqual([10, 10]) && !(bytes == [10]) {
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            bytes.append(contentsOf: chunk[..<count])
            guard bytes.count <= maximumRequestBytes else {
                throw .usage(
                    "the git credential request on stdin is longer than 64 KiB: git-credential is meant to be run by git",
                    rule: .gitCredentialGate)
            }
        }
        return bytes
    }

    /// `key=value` lines up to a blank line ([git-credential(1)](https://git-scm.com/docs/git-credential#IOFMT)):
    /// keys are lower-case letters, digits, `_` and a trailing `[]`; values hold no control character.
    /// A key given twice keeps its last value, as git does.
    package static func parse(_ bytes: [UInt8]) throws(PingCLIError) -> [String: String] {
        var attributes: [String: String] = [:]
        let fix = "git-credential is meant to be run by git (see pingcli git-credential --help)"
        for line in bytes.split(separator: 10, omittingEmptySubsequences: false) {
            if line.isEmpty { break }
            guard let equals = line.firstIndex(of: UInt8(ascii: "=")), equals > line.startIndex else {
                throw .usage("a git credential request line is not key=value: \(fix)", rule: .gitCredentialGate)
            }
            let key = line[..<equals]
            let value = line[(equals + 1)...]
            let keyByte: (UInt8) -> Bool = { (97...122).contains($0) || (48...57).contains($0) || $0 == 95 || $0 == 91 || $0 == 93 }
            guard key.count <= 64, key.allSatisfy(keyByte) else {
                throw .usage("a git credential request has a malformed key: \(fix)", rule: .gitCredentialGate)
            }
            guard let text = String(validating: value, as: UTF8.self),
                !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
            else {
                throw .usage(
                    "the git credential request's \(String(decoding: key, as: UTF8.self)) has control characters or is not UTF-8: \(fix)",
                    rule: .gitCredentialGate)
            }
            attributes[String(decoding: key, as: UTF8.self)] = text
        }
        return attributes
    }

    /// Whether the request is for one of the profile's git hosts, over https (http only to this
    /// machine): the token goes nowhere else, and nowhere it could be read on the way.
    package static func serves(_ request: [String: String], profile: Profile) -> Bool {
        (profile.gitHosts ?? []).contains { $0.matches(protocol: request["protocol"], host: request["host"], path: request["path"]) }
    }

    /// A username pingcli sends: printable, one line, at most 256 characters.
    package static func checkedUsername(_ name: String) throws(PingCLIError) -> String {
        guard !name.isEmpty, name.count <= 256, !name.unicodeScalars.contains(where: { isTerminalActive($0) || $0 == "=" }) else {
            throw .usage(
                "the git username must be 1 to 256 printable characters without \"=\": check --username or PINGCLI_GIT_USERNAME",
                rule: .gitUsername)
        }
        return name
    }
}
