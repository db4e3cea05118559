#if canImport(Glibc)
    import Glibc
#endif

/// The one piece every secret prompt reads through (a journey's password, PIN or code, `otp add`'s
/// pasted URI): the terminal's echo off for the length of one read, and its settings put back on every
/// way out. A normal end puts them back in `run`. A signal that ends pingcli (SIGINT from Ctrl-C,
/// SIGTERM, SIGHUP, SIGQUIT) puts them back in its handler, then goes on to what was there before (the
/// default: the process dies of it). Ctrl-Z (SIGTSTP) gives the shell its terminal back as it was, stops
/// pingcli, and turns echo off again when `fg` continues it; a SIGCONT after any other stop (SIGSTOP)
/// turns it off again too, so a secret is never read with echo on. The handlers call only tcsetattr(3),
/// tcgetpgrp(3), getpgrp(2), sigaction(2), sigprocmask(2) and raise(3).
package enum EchoOff {
    nonisolated(unsafe) static var descriptor: Int32 = -1
    /// On the heap: AddressSanitizer reported the copy into a `termios` global as an overflow of it.
    nonisolated(unsafe) static let saved = UnsafeMutablePointer<termios>.allocate(capacity: 1)
    nonisolated(unsafe) static let quiet = UnsafeMutablePointer<termios>.allocate(capacity: 1)
    nonisolated(unsafe) static let previous = UnsafeMutablePointer<sigaction>.allocate(capacity: 6)
    /// The signals whose handlers are replaced while echo is off, in the order of `previous`.
    package static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGCONT]

    /// Runs `body` with the terminal at `terminal` not echoing (`echoNewline`: the Enter still shows);
    /// nil without running it when `terminal` is not a terminal or its echo cannot be turned off.
    package static func run<Result, Failure: Error>(
        _ terminal: Int32, echoNewline: Bool, _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result? {
        var settings = termios()
        guard isatty(terminal) == 1, tcgetattr(terminal, &settings) == 0 else { return nil }
        var silent = settings
        silent.c_lflag &= ~tcflag_t(ECHO | ECHONL)
        if echoNewline { silent.c_lflag |= tcflag_t(ECHONL) }
        arm(terminal, settings, silent)
        guard tcsetattr(terminal, TCSAFLUSH, quiet) == 0 else {
            disarm()
            return nil
        }
        defer {
            _ = tcsetattr(terminal, TCSAFLUSH, saved)
            disarm()
        }
        return try body()
    }

    package static func arm(_ terminal: Int32, _ settings: termios, _ silent: termios) {
        saved.pointee = settings
        quiet.pointee = silent
        descriptor = terminal
        for (index, signal) in signals.enumerated() {
            var action = sigaction()
            action.__sigaction_handler.sa_handler =
                switch signal {
                case SIGTSTP: stop
                case SIGCONT: resume
                default: end
                }
            sigemptyset(&action.sa_mask)
            sigaction(signal, &action, previous + index)
        }
    }

    package static func disarm() {
        guard descriptor >= 0 else { return }
        for (index, signal) in signals.enumerated() { sigaction(signal, previous + index, nil) }
        descriptor = -1
    }

    /// Whether pingcli is the terminal's foreground (a background process setting it would be stopped).
    package static func inForeground() -> Bool { descriptor >= 0 && tcgetpgrp(descriptor) == getpgrp() }

    package static func index(_ signal: Int32) -> Int { signals.firstIndex(of: signal) ?? 0 }

    /// SIGINT, SIGTERM, SIGHUP, SIGQUIT: the settings back, then the signal's earlier action.
    package static let end: @convention(c) (Int32) -> Void = { signal in
        if EchoOff.descriptor >= 0 { _ = tcsetattr(EchoOff.descriptor, TCSANOW, EchoOff.saved) }
        sigaction(signal, EchoOff.previous + EchoOff.index(signal), nil)
        // Blocked while this handler runs: delivered, with the earlier action, when it returns.
        raise(signal)
    }

    /// SIGTSTP: the settings back for the shell, stopped by the earlier action, echo off again on `fg`.
    package static let stop: @convention(c) (Int32) -> Void = { _ in
        if EchoOff.inForeground() { _ = tcsetattr(EchoOff.descriptor, TCSANOW, EchoOff.saved) }
        var mine = sigaction()
        sigaction(SIGTSTP, EchoOff.previous + EchoOff.index(SIGTSTP), &mine)
        var stopping = sigset_t()
        sigemptyset(&stopping)
        sigaddset(&stopping, SIGTSTP)
        raise(SIGTSTP)
        // Delivered now, with the earlier action (stop); this returns once SIGCONT continues pingcli.
        sigprocmask(SIG_UNBLOCK, &stopping, nil)
        sigaction(SIGTSTP, &mine, nil)
        if EchoOff.inForeground() { _ = tcsetattr(EchoOff.descriptor, TCSANOW, EchoOff.quiet) }
    }

    /// SIGCONT: echo off again, whoever stopped pingcli and whatever the shell set meanwhile.
    package static let resume: @convention(c) (Int32) -> Void = { _ in
        if EchoOff.inForeground() { _ = tcsetattr(EchoOff.descriptor, TCSANOW, EchoOff.quiet) }
    }
}
