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
