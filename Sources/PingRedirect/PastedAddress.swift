/// An address pasted back by a user whose browser runs on another machine: after signing in, that
/// browser is sent to `http://127.0.0.1:PORT/callback?…`, which cannot load there, and its address bar
/// holds exactly the request the loopback listener was waiting for.
///
/// The pasted address becomes the same `LoopbackRequest` that the listener would have parsed, through
/// the same parser, and then meets the same checks (path, `state`, `iss`, `error`, `code`). Reasons
/// never quote the pasted text: it may hold an authorization code.
public enum PastedAddress: Sendable, Equatable {
    /// A blank line: nothing to say.
    case empty
    /// A request to this sign-in's listener, to be handled like one from the browser.
    case request(LoopbackRequest)
    /// Not an address for this listener, and why.
    case rejected(String)

    public init(_ text: String, port: UInt16) {
        let trimmed = String(text.trimmingWhitespace)
        guard !trimmed.isEmpty else {
            self = .empty
            return
        }
        let origin = "http://127.0.0.1:\(port)"
        guard trimmed.hasPrefix(origin + "/") else {
            let lowered = trimmed.lowercased()
            if lowered.hasPrefix("http://127.0.0.1:") || lowered.hasPrefix("http://localhost:") {
                self = .rejected(
                    "it is for another port: this sign-in listens on \(origin), so paste the address from the tab this sign-in opened")
            } else if lowered.hasPrefix("https://") || lowered.hasPrefix("http://") {
                self = .rejected(
                    "it does not start with \(origin)/: paste the address the browser ended on after you signed in, not the sign-in address"
                )
            } else {
                self = .rejected("it is not an address: paste the whole address from the browser's address bar, starting with \(origin)/")
            }
            return
        }
        let target = trimmed.dropFirst(origin.count)
        guard target.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else {
            self = .rejected("it contains spaces or control characters: paste the address exactly as the address bar shows it")
            return
        }
        switch LoopbackRequest.parse(Array("GET \(target) HTTP/1.1\r\n\r\n".utf8)) {
        case .complete(let request): self = .request(request)
        case .invalid(_, let reason): self = .rejected(reason)
        case .incomplete: self = .rejected("malformed address")
        }
    }
}
