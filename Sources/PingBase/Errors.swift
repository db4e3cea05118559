/// Process exit statuses; docs/exit-codes.md is the user-facing table.
public enum ExitStatus: Int32, Sendable {
    /// Success.
    case success = 0
    /// The operation failed: the server refused, a response broke a protocol rule, the user denied access.
    case failure = 1
    /// The command line was wrong.
    case usage = 2
    /// The server could not be reached: network, DNS, TLS, proxy or a timeout.
    case unreachable = 3
    /// No usable session: not logged in, the refresh token was rejected, or the cache cannot be read.
    case loginRequired = 4
    /// The server's TLS key matched none of the profile's pins (`login --pin`): possibly an attack.
    case pinMismatch = 5
    /// `pingcli api --fail`: the API answered with a status outside 2xx.
    case httpError = 6
}

/// The one error type that reaches the user: one line that says what happened and what to do next,
/// and the exit status it maps to. Messages never contain tokens, codes, verifiers or keys.
public struct PingCLIError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: ExitStatus
    public var message: String
    /// The rule this failure enforces, by the name its negative test starts with (`refresh-client-error`,
    /// `device-denied`, `lock-bounded`), so tests assert the rule rather than the wording. Every failure
    /// names one (docs/security.md, "Failure rules").
    public var rule: Rule

    public init(_ status: ExitStatus, _ message: String, rule: Rule) {
        self.status = status
        self.message = message
        self.rule = rule
    }

    public var description: String { message }

    package static func usage(_ message: String, rule: Rule) -> PingCLIError { PingCLIError(.usage, message, rule: rule) }
    package static func failure(_ message: String, rule: Rule) -> PingCLIError { PingCLIError(.failure, message, rule: rule) }
    package static func unreachable(_ message: String, rule: Rule) -> PingCLIError {
        PingCLIError(.unreachable, message, rule: rule)
    }
    package static func loginRequired(_ message: String, rule: Rule) -> PingCLIError {
        PingCLIError(.loginRequired, message, rule: rule)
    }
}
