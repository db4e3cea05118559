import PingAM
import PingBase
import PingFlowCore
import PingOAuth
import PingRedirect

/// A Social Provider Handler's `RedirectCallback` answered from a terminal as the JavaScript SDK's
/// `FRAuth.redirect` / `resume` do (`reference/am-social.md` §3): the browser opened at `redirectUrl`
/// with login's launcher rules, the provider's answer received once on the loopback address AM's
/// configuration names, its `state` compared with the one in `redirectUrl`, and its parameters
/// returned for the step to be posted again with them in the query. pingcli never exchanges the code:
/// AM does. The listener is closed when the wait ends, however it ends.
package struct FederationAnswerer {
    /// The browser round trip, waiting that many seconds at most.
    package var roundTrip: (_ timeout: Double) -> BrowserRoundTrip

    /// The parameters that say the provider answered (`FRAuth.resume`): a code, or Apple's form post entry.
    private static let answerNames: Set<String> = ["code", "form_post_entry", "responsekey"]

    /// What came back: the parameters to post to AM, or the provider's refusal.
    package enum Answer: Equatable {
        case parameters([FormEncoding.Pair])
        case refused(String)

        package static func == (lhs: Answer, rhs: Answer) -> Bool {
            switch (lhs, rhs) {
            case (.parameters(let a), .parameters(let b)): a.map(\.name) == b.map(\.name) && a.map(\.value) == b.map(\.value)
            case (.refused(let a), .refused(let b)): a == b
            default: false
            }
        }
    }

    /// Opens the listener AM's Redirect URL names, sends the browser to the provider, and returns the
    /// query parameters of its answer; a provider's `error`, a busy port or no answer in time end the
    /// sign-in in one line.
    package func answer(_ redirect: SocialRedirect, timeout: Double) throws(PingCLIError) -> [FormEncoding.Pair] {
        let address = redirect.listener
        let listener: LoopbackListener
        do {
            listener = try LoopbackListener(port: address.port, ipv6: address.isIPv6)
        } catch {
            let reason =
                switch error {
                case .socket(let reason), .bind(_, let reason): reason
                }
            throw .failure(
                "cannot listen on \(address.display), where the identity provider sends the browser back (\(reason)): end the program that holds port \(address.port) and sign in again",
                rule: error.rule)
        }
        defer { listener.shutdown() }
        let roundTrip = roundTrip(max(1, timeout))
        let console = roundTrip.console
        let host = redirect.url.origin
        console.err("The journey continues at \(host): pingcli waits for its answer on \(address.display).")
        let outcome = roundTrip.wait(url: redirect.url.value, purpose: "sign in at \(host)", listener: listener) {
            request, pasted -> BrowserRoundTrip.Step<Answer> in
            let (reply, answer, ignored) = Self.handle(request, redirect)
            if let answer { return .arrived(answer) }
            if let ignored { roundTrip.noteIgnored(ignored, pasted: pasted) }
            return .answer(reply)
        }
        guard case .arrived(let answer, let tab) = outcome else {
            throw .failure(
                "no answer from the identity provider at \(host) arrived within \(Int(roundTrip.timeout)) s: run pingcli login again (--timeout sets how long the sign-in may take)",
                rule: .loginTimeout)
        }
        switch answer {
        case .parameters(let pairs):
            tab?.answer(LoopbackReply(status: 200, html: RedirectPage.signedIn, finishes: true))
            return pairs
        case .refused(let summary):
            let message = "the identity provider at \(host) refused the sign-in: \(summary)"
            tab?.answer(LoopbackReply(status: 400, html: RedirectPage.failed(message), finishes: true))
            throw .failure("login failed: \(message): sign in again, or choose another way to sign in", rule: .journeyIdpError)
        }
    }

    /// One request to the listener: the reply for a stray (and why it was ignored), or the answer.
    package static func handle(_ request: LoopbackRequest, _ redirect: SocialRedirect) -> (LoopbackReply, Answer?, ignored: String?) {
        func ignore(_ status: Int, _ reason: String, _ page: String) -> (LoopbackReply, Answer?, ignored: String?) {
            (LoopbackReply(status: status, html: page, finishes: false), nil, reason)
        }
        guard request.path == redirect.listener.path else {
            return ignore(
                404, "\(displaySafe(request.method, limit: 10)) \(displaySafe(request.path, limit: 80)) is not the redirect URL's path",
                RedirectPage.notFound)
        }
        // The answer in the query (a redirect), or in a form (a provider's form_post response mode).
        let fields = request.method == "POST" ? request.formBody : request.method == "GET" ? request.query ?? "" : nil
        guard let fields else {
            return ignore(
                405, "\(displaySafe(request.method, limit: 10)) instead of GET or a form POST",
                RedirectPage.ignored("Only the identity provider's answer is accepted here."))
        }
        guard let pairs = FormEncoding.decode(fields) else {
            return ignore(400, "malformed query string", RedirectPage.ignored("The address is malformed."))
        }
        let states = pairs.filter { $0.name == "state" }.map(\.value)
        guard states.count == 1, stateMatches(states[0], redirect.state) else {
            let why = states.isEmpty ? "it has no state" : "its state is not the one the journey sent to the identity provider"
            return ignore(
                400, why, RedirectPage.ignored("This response does not belong to this sign-in: \(why) (an old tab, or another program)."))
        }
        // As for login's redirect: only a program of this user (or root) may deliver the answer.
        let peer = request.peer()
        guard peer.isTrusted else {
            return ignore(
                403, "it came from another user's program (\(peer.description))",
                RedirectPage.ignored("This address belongs to another user's sign-in."))
        }
        if pairs.contains(where: { answerNames.contains($0.name) }) {
            return (LoopbackReply.hold, .parameters(pairs), nil)
        }
        let error = pairs.first { $0.name == "error" }.map { displaySafe($0.value, limit: 80) } ?? "no code and no error"
        let description = pairs.first { $0.name == "error_description" }.map { " (\(displaySafe($0.value, limit: 200)))" } ?? ""
        return (LoopbackReply.hold, .refused(error + description), nil)
    }
}
