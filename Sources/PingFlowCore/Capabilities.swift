import PingBase
import PingCrypto
import PingHTTP
import PingOAuth
import PingPlatform
import PingTerminal

/// The network, as every use case reaches it: the options for this process (CA bundle, timeouts,
/// `--verbose` tracing), how a transport is made from them, and the DPoP nonces servers gave this
/// process. Built once by the commands layer; tests pass a transport of their own.
public struct Transports {
    public var options: TransportOptions
    /// Builds the transport for a set of options (libcurl in the product).
    public var make: (TransportOptions) -> any HTTPTransport
    /// The DPoP nonces servers gave this process, by origin (RFC 9449 §8–9).
    public var dpopNonces: DPoPNonces
    /// Where a request slower than a second says what it waits for, when stderr is a terminal.
    public var console: Console
    /// The time DPoP proofs carry (`iat`).
    public var clock: WallClock

    public init(
        options: TransportOptions, make: @escaping (TransportOptions) -> any HTTPTransport, dpopNonces: DPoPNonces, console: Console,
        clock: @escaping WallClock
    ) {
        (self.options, self.make, self.dpopNonces, self.console, self.clock) = (options, make, dpopNonces, console, clock)
    }

    /// A transport that trusts `caFile` when given (a profile's saved CA, or --ca-file). With
    /// `timeout`, no request takes longer than that many seconds (connect included).
    /// `tls`: the profile's client certificate and key pins, for every request it makes (no default:
    /// a request to the provider built without them would skip the pins, as the JWK Set fetch at
    /// login once did).
    /// With `dpop`, every request carries a DPoP proof signed with that key (RFC 9449).
    package func transport(caFile: String?, tls: ClientTLS, timeout: Int? = nil, dpop: DPoPKey? = nil) -> any HTTPTransport {
        var options = options
        if let caFile { options.caFile = caFile }
        options.clientTLS = tls
        if let timeout {
            options.connectTimeout = min(options.connectTimeout, timeout)
            options.totalTimeout = min(options.totalTimeout, timeout)
        }
        var transport = make(options)
        // On a terminal, a request slower than a second says what it waits for.
        if console.errorIsTerminal { transport = WaitNoticeTransport(base: transport, console: console) }
        guard let dpop else { return transport }
        return signing(transport, key: dpop)
    }

    /// `base` with a DPoP proof signed with `key` on every request (RFC 9449), sharing this process's nonces.
    package func signing(_ base: any HTTPTransport, key: DPoPKey) -> any HTTPTransport {
        DPoPTransport(base: base, key: key, nonces: dpopNonces, clock: clock)
    }
}

/// The browser a person signs in (or out) with, and the standard input beside it: where an address
/// pasted back from a browser on another machine comes from, or Enter that stops a wait. Built by the
/// commands layer; tests pass their browser double and input.
public struct Browsing {
    public var launcher: any BrowserLauncher
    /// Standard input, where `login` reads an address pasted back from a browser on another machine.
    public var input: Int32
    /// Whether `input` is a terminal, so a person may press Enter to stop waiting for the browser.
    public var inputTerminal: TerminalCheck
    /// `--verbose`: the browser launcher's own output is shown too.
    public var verbose: Bool

    public init(launcher: any BrowserLauncher, input: Int32 = 0, inputTerminal: TerminalCheck = .known(false), verbose: Bool = false) {
        (self.launcher, self.input, self.inputTerminal, self.verbose) = (launcher, input, inputTerminal, verbose)
    }

    /// A round trip through this browser, timed on `waits`, where a person whose browser runs on
    /// another machine may paste the address it ended on (`input`; asked for only on a terminal).
    package func roundTrip(
        console: Console, waits: WaitClock, openBrowser: Bool, timeout: Double,
        hint: (after: Double, text: (_ reached: Bool) -> String?)? = nil
    ) -> BrowserRoundTrip {
        var roundTrip = BrowserRoundTrip(
            console: console, browser: launcher, openBrowser: openBrowser, timeout: timeout, pasteInput: input, hint: hint)
        roundTrip.clock = waits
        roundTrip.pasteIsTerminal = inputTerminal.answer
        roundTrip.verbose = verbose
        return roundTrip
    }
}
