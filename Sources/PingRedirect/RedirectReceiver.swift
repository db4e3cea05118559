import PingBase
import PingOAuth

/// Decides what each request to the loopback listener gets, and when the login is over.
package final class RedirectReceiver {
    package let expectedState: String
    package let issuer: String
    package let issParameterRequired: Bool
    package private(set) var lastIgnoredReason: String?

    /// The authorization response that ended the wait: the code or the refusal, and the page this
    /// receiver answers it with (the login replaces it once it knows how the code exchange went).
    package struct Arrival {
        package var result: Result<String, PingCLIError>
        package var reply: LoopbackReply

        package init(result: Result<String, PingCLIError>, reply: LoopbackReply) {
            self.result = result
            self.reply = reply
        }
    }

    package init(expectedState: String, issuer: String, issParameterRequired: Bool) {
        self.expectedState = expectedState
        self.issuer = issuer
        self.issParameterRequired = issParameterRequired
    }

    /// The reply, and the login's outcome when this request ends it.
    package func handle(_ request: LoopbackRequest) -> (LoopbackReply, Result<String, PingCLIError>?) {
        lastIgnoredReason = nil
        func ignore(_ status: Int, _ reason: String, page: String) -> (LoopbackReply, Result<String, PingCLIError>?) {
            lastIgnoredReason = reason
            return (LoopbackReply(status: status, html: page, finishes: false), nil)
        }
        guard request.path == "/callback" else {
            return ignore(404, "\(request.method) \(displaySafe(request.path, limit: 80)) is not the callback", page: RedirectPage.notFound)
        }
        guard request.method == "GET" else {
            return ignore(
                405, "\(displaySafe(request.method, limit: 10)) instead of GET", page: RedirectPage.ignored("Only GET is accepted here."))
        }
        guard let parameters = FormEncoding.decode(request.query ?? "") else {
            return ignore(400, "malformed query string", page: RedirectPage.ignored("The address is malformed."))
        }
        let states = parameters.filter { $0.name == "state" }.map(\.value)
        guard states.count == 1, stateMatches(states[0], expectedState) else {
            let why = states.isEmpty ? "it has no state" : "its state does not match the sign-in pingcli started"
            return ignore(
                400, why,
                page: RedirectPage.ignored("This response does not belong to this sign-in: \(why) (an old tab, or another program)."))
        }
        // Anyone on this machine can read the browser's command line, state included, and connect here:
        // only a program of this user (or root) may deliver the answer (see PeerCredentials).
        let peer = request.peer()
        guard peer.isTrusted else {
            return ignore(
                403, "it came from another user's program (\(peer.description))",
                page: RedirectPage.ignored("This address belongs to another user's sign-in."))
        }
        do {
            let code = try validateAuthorizationResponse(
                parameters, expectedState: expectedState, issuer: issuer, issParameterRequired: issParameterRequired)
            return (LoopbackReply(status: 200, html: RedirectPage.signedIn, finishes: true), .success(code))
        } catch {
            let message = error.message
            return (
                LoopbackReply(status: 400, html: RedirectPage.failed(message), finishes: true),
                .failure(.failure("login failed: \(message)", rule: error.rule))
            )
        }
    }
}

extension AuthorizationResponseError {
    package var message: String {
        switch self {
        case .issuerMismatch(let received):
            "the response came from issuer \(displaySafe(received, limit: 200)), not the one pingcli asked (RFC 9207): a mix-up attack or a misconfigured server; try again, and report it if it repeats"
        case .issuerMissing:
            "the response has no iss although the server promises one (RFC 9207): try again, and report it if it repeats"
        case .stateMissing: "the response has no state"
        case .stateMismatch: "the response's state does not match"
        case .errorResponse(let error, let issuerMissing):
            (error.code == .accessDenied
                ? "the sign-in was declined at the provider (\(error.summary))"
                : "the server refused the sign-in: \(error.summary)")
                + (issuerMissing && error.code != .accessDenied
                    ? " (note: the response also lacks the iss parameter the server promises, RFC 9207)" : "")
        case .codeMissing: "the response has neither a code nor an error: try again"
        case .repeatedParameter(let name): "the response repeats the \(name) parameter"
        }
    }
}
