import PingBase
import PingCommandLine
import PingCrypto
import PingFlowCore
import PingHTTP
import PingJourney
import PingOAuth
import PingPlatform
import PingSession
import PingSignIn
import PingState
import PingTerminal

#if canImport(Glibc)
    import Glibc
#endif

/// Everything a command may need from the outside world, wired once in `PingCLI.main` and replaced by
/// tests: the commands layer's factory (as gh's `cmdutil.Factory`). No use case takes it: each command
/// hands each use case only its part (`forSession`, `forSignIn`, `forJourney`, `signOff`), built from
/// the capabilities here (`transports`, `browsing`, `waits`, `tpm`).
public struct CommandContext {
    public var store: TokenStore
    public var console: Console
    public var clock: WallClock
    public var browser: any BrowserLauncher
    public var transportOptions: TransportOptions
    /// Builds the transport for a profile's CA settings.
    public var makeTransport: (TransportOptions) -> any HTTPTransport
    /// Standard input, where `login` reads an address pasted back from a browser on another machine.
    public var input: Int32 = 0
    /// Whether `input` is a terminal, so a person may press Enter to stop waiting for the browser.
    public var inputIsTerminal: Bool {
        get { inputTerminal.answer }
        set { inputTerminal = .known(newValue) }
    }
    /// Given (tests), or `isatty(input)` asked when a command wants to know (`token --raw` never does).
    public var inputTerminal: TerminalCheck = .known(false)
    /// Opens the controlling terminal (`/dev/tty`) for a credential helper that signs in (`HelperSignIn`):
    /// the tool owns stdin and stdout, so answers come from here. nil: there is none. Tests pass their own.
    public var openTerminal: @Sendable () -> Int32? = {
        let descriptor = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        return descriptor >= 0 ? descriptor : nil
    }
    /// Seconds without a browser coming back before login and logout name the likely causes.
    public var hintAfter: Double = 20
    /// Monotonic time for deadlines (how long the device flow may poll, the browser may take), the
    /// sleeps between device-flow polls, and the loopback listener's `poll(2)`. Tests pass one that
    /// moves their clock instead.
    public var waits = WaitClock(now: MonotonicClock.now, sleep: WaitClock.sleepSeconds, poll: WaitClock.pollSeconds)
    /// `--verbose`: the browser launcher's own output is shown too (HTTP tracing is `transportOptions.trace`).
    public var verbose = false
    /// The DPoP nonces servers gave this process, by origin (RFC 9449 §8–9).
    public var dpopNonces = DPoPNonces()
    /// The TPM device keys live in (`TPM2TOOLS_TCTI`, else the system default); `.absent` looks for none.
    package var tpm: TPM2.Access = .absent

    public init(
        store: TokenStore, console: Console, clock: @escaping WallClock, browser: any BrowserLauncher,
        transportOptions: TransportOptions, makeTransport: @escaping (TransportOptions) -> any HTTPTransport
    ) {
        (self.store, self.console, self.clock, self.browser, self.transportOptions, self.makeTransport) = (
            store, console, clock, browser, transportOptions, makeTransport
        )
    }
}

extension CommandContext {
    /// The network: this process's transport options, its transports, its DPoP nonces.
    public var transports: Transports {
        Transports(options: transportOptions, make: makeTransport, dpopNonces: dpopNonces, console: console, clock: clock)
    }

    /// The browser and the standard input beside it.
    public var browsing: Browsing {
        Browsing(launcher: browser, input: input, inputTerminal: inputTerminal, verbose: verbose)
    }

    /// What the session's flows take (`token`, `userinfo`, `api`, `logout`, the helpers, AWS).
    public var forSession: SessionContext {
        SessionContext(store: store, console: console, clock: clock, transports: transports)
    }

    /// What a sign-in takes (browser, device code, client credentials).
    public var forSignIn: SignInContext {
        SignInContext(session: forSession, browsing: browsing, waits: waits)
    }

    /// What a journey takes.
    public var forJourney: JourneyContext {
        JourneyContext(session: forSession, browsing: browsing, waits: waits, tpm: tpm)
    }

    /// What `logout --end-session` takes beyond the session.
    package var signOff: SignOffBrowser {
        SignOffBrowser(browsing: browsing, waits: waits)
    }
}

extension CommonOptions {
    /// The context with `--verbose` tracing and the `--http-timeout` limit applied when asked.
    package func applied(to context: CommandContext) -> CommandContext {
        guard verbose || httpTimeout != nil else { return context }
        var traced = context
        if let httpTimeout {
            traced.transportOptions.totalTimeout = httpTimeout
            traced.transportOptions.connectTimeout = min(traced.transportOptions.connectTimeout, httpTimeout)
        }
        guard verbose else { return traced }
        traced.verbose = true
        traced.transportOptions.trace = { [console = context.console] line in console.err(line) }
        return traced
    }
}
