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
