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
}

/// The one error type that reaches the user: one line that says what happened and what to do next,
/// and the exit status it maps to. Messages never contain tokens, codes, verifiers or keys.
public struct PingCLIError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: ExitStatus
    public var message: String

    public init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { message }

    static func usage(_ message: String) -> PingCLIError { PingCLIError(.usage, message) }
    static func failure(_ message: String) -> PingCLIError { PingCLIError(.failure, message) }
    static func unreachable(_ message: String) -> PingCLIError { PingCLIError(.unreachable, message) }
    static func loginRequired(_ message: String) -> PingCLIError { PingCLIError(.loginRequired, message) }
}

/// Makes text from a server or a browser safe to show on one terminal line: control characters
/// (including escape sequences and newlines) become spaces and it is cut to `limit` characters.
func displaySafe(_ text: String, limit: Int = 300) -> String {
    var output = ""
    for scalar in text.unicodeScalars {
        if output.unicodeScalars.count >= limit {
            output += "…"
            break
        }
        let isControl =
            scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
            || scalar.properties.generalCategory == .format
        output.unicodeScalars.append(isControl ? " " : scalar)
    }
    return output
}
