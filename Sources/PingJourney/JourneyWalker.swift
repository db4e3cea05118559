import PingAM
import PingBase
import PingHTTP
import PingOAuth
import PingPlatform
import PingTerminal

/// The steps of one journey, from the first request to the session: each answer posted back to the URL
/// the journey started at; a refused answer (401 Login failure) shown with AM's message and the tree
/// started over (on a terminal, a few times), anything else ends the sign-in in one line.
package struct JourneyWalker {
    package var realm: AMRealm
    package var transport: any HTTPTransport
    package var prompter: JourneyPrompter
    package var console: Console
    /// How many times the tree may be walked (a refused answer starts it over).
    package var retries: Int
    /// The command that resumes a suspended journey (it saves what that needs), and the one that starts
    /// the journey again (`JourneyNextStep`).
    package var resumeCommand: () throws(PingCLIError) -> String = { "pingcli login --resume LINK" }
    package var startCommand: () -> String = { "pingcli login" }
    /// `--timeout` (the prompter's deadline is the start plus this).
    package var timeout: Double = .infinity
    /// The origin sent as `Origin` with every authenticate request (the one in WebAuthn's clientDataJSON,
    /// which AM checks against its Origin domains or, with none configured, against this header).
    package var origin: String? = nil
    /// Steps in one walk before pingcli stops (a tree that never ends).
    package static let maximumSteps = 200
    /// Follows a Social Provider Handler's redirect through the browser: the provider's answer's
    /// parameters (`FederationAnswerer`), given the seconds left; nil: such a step cannot be followed.
    package var federate: ((SocialRedirect, Double) throws(PingCLIError) -> [FormEncoding.Pair])? = nil

    package func walk(tree: JourneyTree?, resume: SuspendedID?) throws(PingCLIError) -> SSOToken {
        var attempt = 1
        // The user name typed in a walk is the next walk's default.
        var prompter = prompter
        while true {
            do {
                return try walkOnce(tree: tree, resume: resume, prompter: &prompter)
            } catch {
                switch error {
                case .protocolError(.loginFailure(let message)) where prompter.restart.blocked != nil:
                    throw .failure(
                        "login failed: AM refused the sign-in: \(displaySafe(message, limit: 200)); not started over: \(prompter.restart.blocked ?? "")",
                        rule: .journeyLoginFailure)
                case .protocolError(.loginFailure(let message)) where attempt < retries && resume == nil:
                    attempt += 1
                    console.err(
                        "pingcli: AM refused the sign-in: \(displaySafe(message, limit: 200)). Starting over (try \(attempt) of \(retries))."
                    )
                case .protocolError(let failure):
                    let expired = failure == .authSessionTimedOut || failure == .suspendedExpired
                    let again = expired ? ": \(startCommand())" : ""
                    throw PingCLIError(expired ? .loginRequired : .failure, "login failed: \(failure.message)\(again)", rule: failure.rule)
                case .prompt(let failure): throw failure
                }
            }
        }
    }

    /// One walk; the protocol's failures come back typed, the person's (no answer, suspension) as
    /// `PingCLIError` wrapped in `.prompt`.
    private func walkOnce(tree: JourneyTree?, resume: SuspendedID?, prompter: inout JourneyPrompter) throws(WalkError) -> SSOToken {
        let url =
            resume.map { realm.resumeURL(suspendedID: $0) } ?? tree.map { realm.startURL(tree: $0) } ?? realm.authenticateEndpoint.value
        var body: [UInt8]? = nil
        // The prompt of the person's last Cancel or No: AM ending the journey after it is their "no".
        var declined: String? = nil
        // The cookies AM sets during this walk, sent back on its later requests; in memory only.
        var cookies = JourneyCookies(host: realm.authenticateEndpoint.host)
        // A provider's answer, in the query of the one post that carries the journey back (FRAuth.resume).
        var returned: [FormEncoding.Pair] = []
        for _ in 0..<Self.maximumSteps {
            // --timeout bounds the whole sign-in: no step is sent after it.
            guard prompter.now() < prompter.deadline else { throw .prompt(timedOut) }
            let step: JourneyStep
            let response: JourneyResponse
            let target = returned.isEmpty ? url : url + (url.contains("?") ? "&" : "?") + FormEncoding.encode(returned)
            returned = []
            do { response = try send(target, body, cookies: &cookies) } catch { throw Self.afterDecline(error, declined) }
            switch response {
            case .success(let done): return done.tokenID
            case .step(let next): step = next
            }
            let outcome: JourneyPrompter.Outcome
            do { outcome = try prompter.handle(step) } catch { throw .prompt(error) }
            declined = nil
            switch outcome {
            case .answer(let answers):
                body = step.body(answers: answers)
                declined = JourneyDecline.declinedPrompt(step, answers)
                if let name = JourneyDecline.userName(step, answers) { prompter.userName = name }
            case .poll: body = step.body(answers: [:])
            case .federate(let redirect):
                guard let federate else {
                    throw .prompt(
                        .failure(
                            "this journey step needs a sign-in with another identity provider, which this command cannot follow",
                            rule: .journeyUnsupported))
                }
                do { returned = try federate(redirect, prompter.deadline - prompter.now()) } catch { throw .prompt(error) }
                // The saved step posted again unchanged (same authId); the answer travels in the query.
                body = step.body(answers: [:])
            case .suspended(let message):
                let command: String
                do { command = try resumeCommand() } catch { throw .prompt(error) }
                throw .prompt(
                    PingCLIError(
                        .loginRequired,
                        "the journey is suspended: \(message.isEmpty ? "AM sent a link to continue" : message); then run \(command) (LINK: the link AM sent, in quotes)",
                        rule: .journeySuspended))
            }
        }
        throw .protocolError(.malformed("the journey did not end within \(Self.maximumSteps) steps"))
    }

    private func send(_ url: String, _ body: [UInt8]?, cookies: inout JourneyCookies) throws(WalkError) -> JourneyResponse {
        let response: HTTPResponse
        var request = AMRealm.authenticateRequest(url, body: body)
        if let origin { request.headers.append(("Origin", origin)) }
        if let cookie = cookies.header(for: url) { request.headers.append(cookie) }
        do {
            response = try transport.send(request)
            cookies.receive(response, for: url)
        } catch {
            throw .prompt(error.asCLIError(doing: "the journey", url: realm.authenticateEndpoint.value))
        }
        do { return try JourneyResponse.process(response) } catch { throw .protocolError(error) }
    }

    /// The sign-in took longer than `--timeout`.
    private var timedOut: PingCLIError {
        .failure(
            "the journey did not end within \(Int(timeout)) s: run pingcli login again (--timeout sets how long the sign-in may take)",
            rule: .loginTimeout)
    }

    /// AM refusing the walk right after the person chose Cancel or No: their "no", not a failure to retry.
    private static func afterDecline(_ error: WalkError, _ declined: String?) -> WalkError {
        guard let declined, case .protocolError(.loginFailure) = error else { return error }
        return .prompt(JourneyDecline.cancelled(at: "\"\(declined)\""))
    }

    package enum WalkError: Error {
        case protocolError(JourneyError)
        case prompt(PingCLIError)
    }
}
