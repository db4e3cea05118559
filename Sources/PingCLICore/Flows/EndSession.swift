/// RP-initiated logout ([OpenID Connect RP-Initiated Logout 1.0 §2](https://openid.net/specs/openid-connect-rpinitiated-1_0.html)).
///
/// The browser is sent to a one-time local address, `/start/<random>`, that redirects it to the
/// end-session endpoint with the `id_token_hint`, so the ID token never appears in a process argument.
/// That local step hands out the ID token, so it is served once, and only to a program of this user:
/// the browser's command line (and so the random path) is readable by every local user, but the
/// kernel's socket table tells who owns the connecting socket (`PeerCredentials`). A request from
/// another user gets a 403 and nothing else; the real browser still gets its redirect.
extension LogoutFlow {
    func endBrowserSession(profile: Profile, idToken: IDToken?, name: ProfileName) throws(PingCLIError) {
        guard let endpoint = profile.metadata.endSessionEndpoint else {
            throw .failure("profile \"\(name)\": the provider has no end_session_endpoint, so the browser session was not ended")
        }
        let console = context.console
        // An exact-port provider registered http://127.0.0.1:<the login's port>/logout.
        let listener = try LoopbackListener(port: port ?? profile.port ?? 0)
        let state = RandomValue.generate()
        let startPath = "/start/" + RandomValue.generate()
        let postLogout = "http://127.0.0.1:\(listener.port)/logout"
        var pairs: [FormEncoding.Pair] = []
        if let idToken { pairs.append(("id_token_hint", idToken.value)) }
        pairs += [("client_id", profile.clientID), ("post_logout_redirect_uri", postLogout), ("state", state)]
        let target = endpoint.value + (endpoint.query == nil ? "?" : "&") + FormEncoding.encode(pairs)
        let start = "http://127.0.0.1:\(listener.port)\(startPath)"
        let roundTrip = BrowserRoundTrip(console: console, browser: context.browser, openBrowser: openBrowser, timeout: timeout)
        var started = false
        let purpose = "end the session at \(displaySafe(profile.issuer))"
        let done = roundTrip.run(url: start, purpose: purpose, listener: listener) { request, _ in
            guard request.method == "GET" else { return LoopbackReply(status: 405, html: RedirectPage.notFound, finishes: false) }
            /// The requests that act (the start address, the return) must come from this user's programs.
            func refusedPeer() -> LoopbackReply? {
                let peer = request.peer()
                guard !peer.isTrusted else { return nil }
                console.err("pingcli: refused a request to the sign-out listener from another user's program (\(peer.description))")
                return LoopbackReply(
                    status: 403, html: RedirectPage.ignored("This address belongs to another user's sign-out."), finishes: false)
            }
            switch request.path {
            case startPath where !started:
                if let refused = refusedPeer() { return refused }
                started = true
                return LoopbackReply(status: 302, html: "", finishes: false, location: target)
            case "/logout":
                let values = FormEncoding.decode(request.query ?? "") ?? []
                let states = values.filter { $0.name == "state" }.map(\.value)
                guard states.count == 1, stateMatches(states[0], state) else {
                    return LoopbackReply(
                        status: 400, html: RedirectPage.ignored("This response does not belong to this sign-out."), finishes: false)
                }
                if let refused = refusedPeer() { return refused }
                return LoopbackReply(status: 200, html: RedirectPage.signedOut, finishes: true)
            default:
                return LoopbackReply(status: 404, html: RedirectPage.notFound, finishes: false)
            }
        }
        guard done else {
            throw .failure(
                "profile \"\(name)\": the provider did not redirect back within \(Int(timeout)) s, so the browser session may still be active"
            )
        }
        console.err("Ended the browser session at \(displaySafe(profile.issuer)).")
    }
}
