import PingBase
import PingRedirect

/// Where a loopback listener's failure gets its words: `LoopbackListener` throws the facts (which port,
/// the system's reason) with the rule, and the flow that opened it says what to do next.
extension LoopbackListenerFailure {
    /// A sign-in's listener for the redirect (`login --port`).
    package var cliError: PingCLIError {
        switch self {
        case .socket(let reason): .failure("cannot create the loopback listener: \(reason)", rule: rule)
        case .bind(let port, let reason):
            .usage("cannot listen on 127.0.0.1:\(port) (\(reason)): choose another --port, or 0 for any free port", rule: rule)
        }
    }
}

extension LoopbackListener {
    /// The listener for a sign-in's redirect, its failure worded for `login`.
    package static func forLogin(port: UInt16) throws(PingCLIError) -> LoopbackListener {
        do { return try LoopbackListener(port: port) } catch { throw error.cliError }
    }
}
