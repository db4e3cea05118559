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

    package init(
        console: Console, browser: any BrowserLauncher, openBrowser: Bool, timeout: Double, pasteInput: Int32? = nil,
        hint: (after: Double, text: (_ reached: Bool) -> String?)? = nil, confirmInput: Int32? = nil, clock: WaitClock = .system
    ) {
        self.console = console
        self.browser = browser
        self.openBrowser = openBrowser
        self.timeout = timeout
        self.pasteInput = pasteInput
        self.hint = hint
        self.confirmInput = confirmInput
        self.clock = clock
    }
    /// Whether `pasteInput` is a terminal: only then is a person asked to paste (a pipe may still carry
    /// the address, silently).
    package var pasteIsTerminal = true
    /// `--verbose`: what the browser launcher printed is shown (it never is otherwise).
    package var verbose = false

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

    /// Names on stderr a request that did not end the wait: a pasted address refused (then `pasteAdvice`,
    /// what to paste instead, if any) or a stray request to the listener.
    package func noteIgnored(_ reason: String, pasted: Bool, pasteAdvice: String? = nil) {
        console.err(
            pasted
                ? "pingcli: the pasted address was not accepted: \(reason)\(pasteAdvice.map { ": \($0)" } ?? "")"
                : "pingcli: ignored a request to the loopback listener: \(reason)")
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
        var (launched, pasting) = announce(url, purpose: purpose, port: listener.port)
        func offerPaste() { pasting = offeredPaste(pasting, port: listener.port) }
        let lines = (pasteInput ?? confirmInput).map(LineReader.init(descriptor:))
        var (finishedByPaste, confirmed, reached) = (false, false, false)
        var hintAt = hint.map { clock.now() + $0.after }
        let started = clock.now()
        let deadline = started + timeout
        var timeLeft = waitingLine()
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
                    if let at = hintAt, clock.now() >= at {
                        hintAt = nil
                        showHint(reached: reached, timeLeft: &timeLeft)
                    }
                    if let process = launched, let status = process.exitStatus() {
                        launched = nil
                        timeLeft.clear()
                        if launcherFailed(process, status: status) { offerPaste() }
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

    /// Opens the browser at `url` (or asks the person to), and says how long pingcli waits: the browser
    /// launched, and whether pasting is offered already (no browser was opened here).
    private func announce(_ url: String, purpose: String, port: UInt16) -> (launched: (any BrowserProcess)?, pasting: Bool) {
        var launched: (any BrowserProcess)? = nil
        // Pasting is offered, once, when no browser was opened here: --no-browser, or a launcher that failed.
        var pasting = false
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
                pasting = offeredPaste(pasting, port: port)
            }
        } else if pasteInput != nil {
            console.err("Open this URL in a browser to \(purpose):\n\n  \(url)\n")
            pasting = offeredPaste(pasting, port: port)
        } else {
            console.err("Open this URL in a browser on this machine to \(purpose):\n\n  \(url)\n")
        }
        console.err("Waiting up to \(Int(timeout)) s (Ctrl-C to cancel)…")
        return (launched, pasting)
    }

    /// Offers pasting, once, when there is somewhere to paste: whether it is offered now.
    private func offeredPaste(_ offered: Bool, port: UInt16) -> Bool {
        guard pasteInput != nil, !offered else { return offered }
        if pasteIsTerminal {
            console.err(
                "If that browser runs on another machine, it ends on an address starting with http://127.0.0.1:\(port)/ that does not load there: copy that address from its address bar, paste it here and press Enter."
            )
        }
        return true
    }

    /// The line counting down the wait, shown after a second.
    private func waitingLine() -> TimeLeftLine {
        var line = TimeLeftLine(console: console, what: "the browser")
        line.after = 1
        return line
    }

    /// The `hint`, once it is due (when it has text for this moment).
    private func showHint(reached: Bool, timeLeft: inout TimeLeftLine) {
        guard let text = hint?.text(reached) else { return }
        timeLeft.clear()
        console.err(text)
    }

    /// Shows what an exited browser launcher printed (with --verbose); true when it failed.
    private func launcherFailed(_ process: any BrowserProcess, status: Int32) -> Bool {
        if verbose { for line in process.output { console.err("  browser launcher: \(line)") } }
        guard status != 0 else { return false }
        console.err("pingcli: the browser launcher exited with status \(status): open the URL above in a browser yourself")
        return true
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
