import PingPlatform
import PingRedirect
import PingTerminal

/// Sends the user's browser somewhere and waits on the loopback listener for it to come back: shared
/// by login (the authorization redirect) and logout (the post-logout redirect).
package struct BrowserRoundTrip {
    package let console: Console
    package let browser: any BrowserLauncher
    package let openBrowser: Bool
    package let timeout: Double
    /// Where a user whose browser runs on another machine may paste the address it ended on (login's
    /// standard input); nil when the round trip only works with a browser on this machine.
    package var pasteInput: Int32? = nil
    /// A note printed once, `after` seconds in, unless the wait is over: the browser is probably showing
    /// the provider's own page, and the user should learn why before `timeout`. `text` is told whether
    /// any request has reached the listener yet; nil prints nothing.
    package var hint: (after: Double, text: (_ reached: Bool) -> String?)? = nil
    /// Where a person may press Enter to end the wait themselves (logout: the provider showed its own
    /// signed-out page instead of sending the browser back); nil: only the listener or a paste ends it.
    package var confirmInput: Int32? = nil
    /// The time the wait is measured on (the hint, the timeout, the listener's connections).
    package var clock: WaitClock = .system
    /// Whether `pasteInput` is a terminal: only then is a person asked to paste (a pipe may still carry
    /// the address, silently).
    var pasteIsTerminal = true
    /// `--verbose`: what the browser launcher printed is shown (it never is otherwise).
    var verbose = false

    /// How the wait ended.
    package enum End: Equatable {
        /// `handle` (or a pasted address) finished it.
        case handled
        /// A line on `confirmInput`.
        case confirmed
        case timedOut
    }

    /// What `wait`'s `handle` makes of one request.
    package enum Step<Value> {
        /// Answer it now (a stray, a refusal, or a reply that finishes the wait).
        case answer(LoopbackReply)
        /// The value the wait was for: it ends the wait, and the request is answered later.
        case arrived(Value)
    }

    /// How `wait` ended.
    package enum Outcome<Value> {
        /// The value arrived; `tab` is the browser's connection, to answer once the caller knows what to
        /// say (nil when the address was pasted: there is no browser to answer).
        case arrived(Value, tab: HeldConnection?)
        /// A reply that finishes (or a line on `confirmInput`) ended it.
        case answered
        case confirmed
        case timedOut
    }

    /// Opens `url` (or asks the user to), then serves `listener` until `handle` finishes or time runs out.
    /// `purpose` completes "to …" in the messages. `handle` is told whether the request was pasted.
    package func run(
        url: String, purpose: String, listener: LoopbackListener, handle: (LoopbackRequest, _ pasted: Bool) -> LoopbackReply
    ) -> End {
        let outcome = wait(url: url, purpose: purpose, listener: listener) { request, pasted -> Step<Never> in
            .answer(handle(request, pasted))
        }
        switch outcome {
        case .arrived, .answered: return .handled
        case .confirmed: return .confirmed
        case .timedOut: return .timedOut
        }
    }

    /// Like `run`, but the request that ends the wait may carry a value (`Step.arrived`): the wait
    /// returns it with the browser's connection still open, so the caller acts on it first and answers
    /// the browser afterwards.
    package func wait<Value>(
        url: String, purpose: String, listener: LoopbackListener, handle: (LoopbackRequest, _ pasted: Bool) -> Step<Value>
    ) -> Outcome<Value> {
        var arrived: Value? = nil
        /// The listener's view of a step: a value holds the connection.
        func reply(_ request: LoopbackRequest, _ pasted: Bool) -> LoopbackReply {
            switch handle(request, pasted) {
            case .answer(let reply): return reply
            case .arrived(let value):
                arrived = value
                return .hold
            }
        }
        let origin = "http://127.0.0.1:\(listener.port)/"
        let pasteHint =
            "If that browser runs on another machine, it ends on an address starting with \(origin) that does not load there: copy that address from its address bar, paste it here and press Enter."
        var launched: (any BrowserProcess)? = nil
        // Pasting is offered, once, when no browser was opened here: --no-browser, or a launcher that failed.
        var pasting = false
        func offerPaste() {
            guard pasteInput != nil, !pasting else { return }
            pasting = true
            if pasteIsTerminal { console.err(pasteHint) }
        }
        let unavailable = openBrowser ? browser.unavailable : nil
        if let unavailable {
            console.err("pingcli: \(unavailable), so no browser is opened (PINGCLI_BROWSER or BROWSER names one)")
        }
        if openBrowser && unavailable == nil {
            console.err("Opening your browser to \(purpose)")
            console.err("If it does not open, visit this URL on this machine:\n\n  \(url)\n")
            switch browser.open(url) {
            case .success(let process): launched = process
            case .failure(let error):
                console.err("pingcli: \(error.reason): open the URL above in a browser yourself")
                offerPaste()
            }
        } else if pasteInput != nil {
            console.err("Open this URL in a browser to \(purpose):\n\n  \(url)\n")
            offerPaste()
        } else {
            console.err("Open this URL in a browser on this machine to \(purpose):\n\n  \(url)\n")
        }
        console.err("Waiting up to \(Int(timeout)) s (Ctrl-C to cancel)…")
        let lines = (pasteInput ?? confirmInput).map(LineReader.init(descriptor:))
        var finishedByPaste = false
        var confirmed = false
        var reached = false
        var hintAt = hint.map { clock.now() + $0.after }
        let started = clock.now()
        let deadline = started + timeout
        var timeLeft = TimeLeftLine(console: console, what: "the browser")
        timeLeft.after = 1
        defer { timeLeft.clear() }
        let served = withoutActuallyEscaping(reply) { reply in
            let side = lines.map { reader in
                LoopbackListener.SideInput(
                    descriptor: { (pasting || confirmInput != nil) && reader.mayRead ? reader.descriptor : nil },
                    readable: {
                        for event in reader.readAvailable() where !finishedByPaste && !confirmed {
                            if pasting {
                                finishedByPaste = pasted(event, port: listener.port, handle: reply)
                            } else {
                                confirmed = true
                            }
                        }
                        return finishedByPaste || confirmed
                    })
            }
            return listener.serve(
                until: clock.now() + timeout, clock: clock,
                tick: {
                    if let at = hintAt, clock.now() >= at, let hint {
                        hintAt = nil
                        if let text = hint.text(reached) {
                            timeLeft.clear()
                            console.err(text)
                        }
                    }
                    if let process = launched, let status = process.exitStatus() {
                        launched = nil
                        timeLeft.clear()
                        if verbose { for line in process.output { console.err("  browser launcher: \(line)") } }
                        if status != 0 {
                            console.err(
                                "pingcli: the browser launcher exited with status \(status): open the URL above in a browser yourself")
                            offerPaste()
                        }
                    }
                    timeLeft.show(deadline - clock.now(), elapsed: clock.now() - started)
                },
                side: side,
                handle: {
                    reached = true
                    return reply($0, false)
                })
        }
        if let arrived { return .arrived(arrived, tab: listener.held) }
        return confirmed ? .confirmed : served ? .answered : .timedOut
    }

    /// Handles one pasted line; true when it ends the wait. The line itself is never echoed: it may hold
    /// an authorization code.
    private func pasted(_ event: LineReader.Event, port: UInt16, handle: (LoopbackRequest, Bool) -> LoopbackReply) -> Bool {
        switch event {
        case .tooLong:
            console.err("pingcli: that line is too long to be the address pingcli waits for: paste it again")
            return false
        case .line(let text):
            switch PastedAddress(text, port: port) {
            case .empty: return false
            case .rejected(let reason):
                console.err("pingcli: the pasted text was not accepted: \(reason)")
                return false
            case .request(let request):
                let reply = handle(request, true)
                return reply.finishes || reply.holds
            }
        }
    }
}
