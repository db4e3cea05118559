import PingBase
import PingFlowCore
import PingOAuth
import PingPlatform
import PingRedirect
import PingState

#if canImport(Glibc)
    import Glibc
#endif

/// RP-initiated logout ([OpenID Connect RP-Initiated Logout 1.0 §2](https://openid.net/specs/openid-connect-rpinitiated-1_0.html)).
///
/// The browser is sent to a one-time local address, `/start/<random>`, that redirects it to the
/// end-session endpoint with the `id_token_hint`, so the ID token never appears in a process argument.
/// That local step hands out the ID token, so it is served once, and only to a program of this user:
/// the browser's command line (and so the random path) is readable by every local user, but the
/// kernel's socket table tells who owns the connecting socket (`PeerCredentials`). A request from
/// another user gets a 403 and nothing else; the real browser still gets its redirect.
extension LogoutFlow {
    /// The sign-off listener, bound before anything is removed: when its port is taken, the tokens
    /// (and the ID token a retry on another port sends as `id_token_hint`) are all still there. nil
    /// when the profile cannot end a browser session (`endBrowserSession` then says why).
    package func bindSignOffListener(profile: Profile, name: ProfileName) throws(PingCLIError) -> LoopbackListener? {
        guard profile.grantType != .clientCredentials, profile.metadata.endSessionEndpoint != nil else { return nil }
        // Providers match the sign-off URL exactly (PingOne always; PingFederate ignores one it does not
        // know): the same port every time, the one the profile fixed or 8252, so it is registered once.
        let fixedPort = port ?? profile.effectiveLogoutPort
        do {
            return try LoopbackListener(port: fixedPort)
        } catch {
            guard case .bind(_, let reason) = error else { throw error.cliError }
            let holder = PeerCredentials.listenerOwner(port: fixedPort).map {
                $0 == getuid() ? ", held by a program of yours (uid \($0))" : ", held by another user (uid \($0))"
            }
            throw .usage(
                "cannot listen on 127.0.0.1:\(fixedPort) for the sign-off URL http://127.0.0.1:\(fixedPort)/logout (\(reason)\(holder ?? "")), so nothing was removed: stop the program using it, or give --port N here (or save one with pingcli login --logout-port N) and register http://127.0.0.1:N/logout with the provider",
                rule: .signOffPortTaken)
        }
    }

    package func endBrowserSession(
        profile: Profile, idToken: IDToken?, name: ProfileName, listener: LoopbackListener?, through signOff: SignOffBrowser
    ) throws(PingCLIError) {
        guard profile.grantType != .clientCredentials else {
            throw .usage(
                "profile \"\(name)\" signs in as the client itself (client credentials): there is no browser session to end; leave out --end-session",
                rule: .clientCredentialsNoSession)
        }
        guard let endpoint = profile.metadata.endSessionEndpoint else {
            throw .failure(
                "profile \"\(name)\": the provider has no end_session_endpoint, so the browser session was not ended",
                rule: .signOffNoEndpoint)
        }
        let console = context.console
        var bound = listener
        if bound == nil { bound = try bindSignOffListener(profile: profile, name: name) }
        guard let listener = bound else {
            throw .failure("profile \"\(name)\": the browser session was not ended", rule: .signOffNoEndpoint)
        }
        let state = RandomValue.generate()
        let startPath = "/start/" + RandomValue.generate()
        let postLogout = "http://127.0.0.1:\(listener.port)/logout"
        let target = Self.signOffTarget(endpoint, idToken: idToken, clientID: profile.clientID, postLogout: postLogout, state: state)
        let start = "http://127.0.0.1:\(listener.port)\(startPath)"
        var started = false
        var roundTrip = BrowserRoundTrip(console: console, browser: signOff.browsing.launcher, openBrowser: openBrowser, timeout: timeout)
        roundTrip.verbose = signOff.browsing.verbose
        roundTrip.hint = (
            hintAfter,
            { _ in
                started
                    ? SignOffHint.waiting(postLogout: postLogout, clientID: profile.clientID, after: hintAfter, canConfirm: canConfirm)
                    : "pingcli: the browser has not opened the sign-out address after \(Int(hintAfter)) s: open \(start) in a browser on this machine"
            }
        )
        roundTrip.confirmInput = canConfirm ? signOff.browsing.input : nil
        roundTrip.clock = signOff.waits
        let purpose = "end the session at \(displaySafe(profile.issuer))"
        let done = roundTrip.run(url: start, purpose: purpose, listener: listener) { request, _ in
            guard request.method == "GET" else { return LoopbackReply(status: 405, html: RedirectPage.notFound, finishes: false) }
            switch request.path {
            case startPath where !started:
                if let refused = refusedPeer(request) { return refused }
                started = true
                return LoopbackReply(status: 302, html: "", finishes: false, location: target)
            case "/logout":
                let values = FormEncoding.decode(request.query ?? "") ?? []
                let states = values.filter { $0.name == "state" }.map(\.value)
                guard states.count == 1, stateMatches(states[0], state) else {
                    return LoopbackReply(
                        status: 400, html: RedirectPage.ignored("This response does not belong to this sign-out."), finishes: false)
                }
                if let refused = refusedPeer(request) { return refused }
                return LoopbackReply(status: 200, html: RedirectPage.signedOut, finishes: true)
            default:
                return LoopbackReply(status: 404, html: RedirectPage.notFound, finishes: false)
            }
        }
        try reportSignOff(done, started: started, profile: profile, name: name, postLogout: postLogout)
    }

    /// The end-session request (§2): the ID token as `id_token_hint` when there is one.
    package static func signOffTarget(
        _ endpoint: EndpointURL, idToken: IDToken?, clientID: String, postLogout: String, state: String
    ) -> String {
        var pairs: [FormEncoding.Pair] = []
        if let idToken { pairs.append(("id_token_hint", idToken.value)) }
        pairs += [("client_id", clientID), ("post_logout_redirect_uri", postLogout), ("state", state)]
        return endpoint.value + (endpoint.query == nil ? "?" : "&") + FormEncoding.encode(pairs)
    }

    /// A request that acts (the start address, the return) from another user's program: refused.
    package func refusedPeer(_ request: LoopbackRequest) -> LoopbackReply? {
        let peer = request.peer()
        guard !peer.isTrusted else { return nil }
        context.console.err("pingcli: refused a request to the sign-out listener from another user's program (\(peer.description))")
        return LoopbackReply(
            status: 403, html: RedirectPage.ignored("This address belongs to another user's sign-out."), finishes: false)
    }

    /// How the wait for the browser ended, said (or thrown) to the person.
    package func reportSignOff(
        _ done: BrowserRoundTrip.End, started: Bool, profile: Profile, name: ProfileName, postLogout: String
    ) throws(PingCLIError) {
        let console = context.console
        switch done {
        case .handled:
            console.err("Ended the browser session at \(displaySafe(profile.issuer)).")
        case .confirmed:
            console.err(
                "Stopped waiting: you saw the provider's own page. If it said you are signed out, the browser session at \(displaySafe(profile.issuer)) has ended."
            )
        case .timedOut where !started:
            throw .failure(
                "profile \"\(name)\": no browser opened the sign-out address within \(Int(timeout)) s, so the browser session was not ended: run pingcli logout --end-session again (--no-browser prints the address)",
                rule: .logoutBrowserFails)
        case .timedOut:
            throw .failure(
                SignOffHint.timedOut(profile: name, postLogout: postLogout, clientID: profile.clientID, timeout: timeout),
                rule: .signOffTimeout)
        }
    }
}

/// What pingcli says while the browser is at the provider's sign-off page and nothing comes back.
///
/// The provider decides whether the browser returns: PingOne answers a `post_logout_redirect_uri` that is
/// not registered for the application with an error page and no redirect; PingFederate ignores one it
/// does not allow and shows its own signed-out page, and asks the person to confirm the sign-off when it
/// cannot tell whose session it is. pingcli cannot see that page, so it names the cases.
package enum SignOffHint {
    package static func waiting(postLogout: String, clientID: String, after: Double, canConfirm: Bool) -> String {
        let enter = canConfirm ? ": press Enter to stop waiting" : ""
        return
            "pingcli: the browser has not come back to \(postLogout) after \(Int(after)) s. If the provider asks you to confirm signing out, confirm it. An error page about the sign-off or post-logout redirect URL means \(postLogout) is not registered for client \(displaySafe(clientID, limit: 80)): register it exactly, port included. The provider's own signed-out page means the session has ended but the provider does not send the browser back (PingFederate does so when that URL is not among the client's allowed logout URIs)\(enter). Otherwise keep waiting"
    }

    package static func timedOut(profile: ProfileName, postLogout: String, clientID: String, timeout: Double) -> String {
        "profile \"\(profile)\": the provider did not send the browser back to \(postLogout) within \(Int(timeout)) s. If the browser shows the provider's signed-out page, the session has ended; if it shows an error, register \(postLogout) as a sign-off (post-logout redirect) URL of client \(displaySafe(clientID, limit: 80)) and run pingcli logout --end-session again"
    }
}
