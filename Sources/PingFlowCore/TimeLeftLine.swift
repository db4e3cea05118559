import PingBase
import PingTerminal

/// The time a wait has left, on one line of stderr that is rewritten in place (carriage return, erase
/// to the end of the line): only when stderr is a terminal, never on stdout, never in a log or a pipe.
package struct TimeLeftLine {
    package let console: Console
    /// What is waited for: "the browser", "the sign-in to be approved".
    package let what: String
    /// Seconds the wait must have lasted before the line appears (a browser that comes back at once
    /// leaves no trace on the terminal).
    package var after: Double = 0
    private var shown = false
    private var lastWhole = -1

    package init(console: Console, what: String) {
        self.console = console
        self.what = what
    }

    /// Shows `seconds` left (once a second at most), once `elapsed` has reached `after`.
    package mutating func show(_ seconds: Double, elapsed: Double = .infinity) {
        guard console.errorIsTerminal, elapsed >= after else { return }
        let whole = max(0, Int(seconds.rounded(.up)))
        guard whole != lastWhole else { return }
        lastWhole = whole
        let left = describeInterval(Double(whole)).dropFirst(3)  // "in 4m 12s" without "in "
        console.writeErr("\r\u{1B}[KWaiting for \(what): \(left) left (Ctrl-C to cancel)")
        shown = true
    }

    /// Erases the line, before another message or when the wait is over.
    package mutating func clear() {
        guard shown else { return }
        console.writeErr("\r\u{1B}[K")
        shown = false
        lastWhole = -1
    }
}
