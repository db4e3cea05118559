import PingBase
import PingHTTP
import PingOAuth

/// The one call of the token endpoint every flow makes (the code exchange, refresh, the device poll,
/// client credentials, token exchange, a journey's session code): send the request, then
/// `TokenEndpoint.classify` reads the answer. A transport failure comes back as it is, for the flow to
/// word with its own rule; the flows then only sleep, lock, save and print.
package struct TokenEndpointCall {
    package var transport: any HTTPTransport
    package var clock: WallClock
    /// Whether the request carries a DPoP proof (so the token must come back DPoP-bound).
    package var dpop: Bool

    package init(transport: any HTTPTransport, clock: @escaping WallClock, dpop: Bool) {
        self.transport = transport
        self.clock = clock
        self.dpop = dpop
    }

    /// `exchange`: a token exchange (RFC 8693), whose answer must be an access token.
    package func send(_ request: HTTPRequest, exchange: Bool = false) throws(TransportError) -> TokenEndpointOutcome {
        let response = try transport.send(request)
        return TokenEndpoint.classify(response, now: clock(), dpop: dpop, exchange: exchange)
    }

    /// A sign-in's call: the token set, or one line saying what failed. `advice`: the next step to add
    /// when the endpoint answers with an OAuth error.
    package func obtain(
        _ request: HTTPRequest, doing what: String, advice: ((OAuthErrorResponse) -> String)? = nil
    )
        throws(PingCLIError) -> TokenSet
    {
        let outcome: TokenEndpointOutcome
        do {
            outcome = try send(request)
        } catch {
            throw error.asCLIError(doing: what, endpoint: "token", url: request.url)
        }
        switch outcome {
        case .tokens(let tokens): return tokens
        case .refused(let error, _, _, _):
            if case .oauthError(_, let oauth) = error, let advice {
                throw .failure("\(what) failed: \(error.message): \(advice(oauth))", rule: error.rule)
            }
            throw .failure("\(what) failed: \(error.message)", rule: error.rule)
        }
    }
}
