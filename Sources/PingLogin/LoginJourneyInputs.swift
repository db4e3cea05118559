import PingAM
import PingBase
import PingCommandLine
import PingFlowCore
import PingOAuth
import PingOTP
import PingPlatform
import PingState
import PingTerminal

/// `login --journey TREE` and its companions, each through its gate: the tree's name, `--resume` (an id
/// or the link), `--authenticate-endpoint` (the endpoint policy for the issuer), `--cookie-name` (an
/// RFC 6265 cookie name) and `--answers FILE` (this user's file, mode 0600, then its own gate). A saved
/// profile's tree is used again when none is given (`login --profile NAME`).
package enum LoginJourneyInputs {
    package static let specs: [OptionSpec] = [
        OptionSpec(
            LoginOption.journey, valueName: "TREE",
            help: "PingAM / Advanced Identity Cloud: sign in by walking this authentication tree in the terminal, no browser; saved"),
        OptionSpec(LoginOption.resume, valueName: "ID|URL", help: "continue a suspended journey (the suspendedId, or the link AM sent)"),
        OptionSpec(
            LoginOption.authenticateEndpoint, valueName: "URL",
            help: "the journey's authenticate endpoint (default: derived from the issuer's realm); saved"),
        OptionSpec(LoginOption.cookieName, valueName: "NAME", help: "AM's session cookie name (default: from /json/serverinfo/*); saved"),
        OptionSpec(
            LoginOption.answers, valueName: "FILE", help: "answers to the journey's prompts, PROMPT=VALUE lines, mode 0600 (for scripts)"),
        OptionSpec(
            LoginOption.otp, valueName: "NAME",
            help: "answer the journey's one-time-code prompts from the stored OTP account NAME (pingcli otp); saved"),
        OptionSpec(
            LoginOption.idp, valueName: "NAME",
            help: "at the journey's Select Identity Provider step, sign in with AM's provider NAME without asking; saved"),
        OptionSpec(
            LoginOption.otpEnroll, valueName: "NAME",
            help: "register pingcli as the authenticator at the journey's OATH registration step, as the OTP account NAME, without asking"),
        OptionSpec(
            LoginOption.otpReplace,
            help: "let that registration replace this AM's OTP account of the same name (its old secret is lost); default: refuse"),
        OptionSpec(
            LoginOption.webAuthnOrigin, valueName: "URL",
            help: "the origin passkey steps speak for, when AM is published under another name (default: AM's own); saved"),
    ]

    /// The journey asked for, or the saved one (`sameIssuer`: the profile's for the same issuer), and
    /// its answers file (read by `answers` with the plan); nil for every other sign-in. Pure.
    package static func resolve(
        _ flags: LoginPlan.Flags, issuer: IssuerURL, saved sameIssuer: Profile?
    ) throws(PingCLIError) -> (SignIn.Journey?, answers: String?) {
        guard flags.journey != nil || flags.resume != nil || sameIssuer?.journey != nil else {
            let companions = [
                (LoginOption.authenticateEndpoint, flags.authenticateEndpoint), (.cookieName, flags.cookieName), (.answers, flags.answers),
                (.otp, flags.otp), (.otpEnroll, flags.otpEnroll), (.otpReplace, flags.otpReplace ? "" : nil),
                (.idp, flags.idp),
                (.webAuthnOrigin, flags.webAuthnOrigin),
            ]
            for (option, value) in companions where value != nil {
                throw .usage("--\(option.rawValue) belongs to a journey sign-in: give --journey TREE too", rule: .journeyCompanion)
            }
            return (nil, nil)
        }
        var tree: JourneyTree? = nil
        if let name = flags.journey ?? sameIssuer?.journey {
            guard let checked = JourneyTree(name) else {
                throw .usage(
                    "--journey must name a tree: printable text, no leading or trailing spaces, at most 256 bytes",
                    rule: .journeyTreeName)
            }
            tree = checked
        }
        var options = SignIn.Journey(tree: tree, savedTree: sameIssuer?.journey)
        if let text = flags.resume {
            guard let id = SuspendedID(text) else {
                throw .usage(
                    "--resume takes the suspended journey's id or the link AM sent (with suspendedId=…)", rule: .journeySuspendedId)
            }
            options.resume = id
        }
        if let text = flags.authenticateEndpoint ?? sameIssuer?.authenticateEndpoint {
            do {
                options.authenticateEndpoint = try EndpointPolicy.check(text, issuer: issuer.url)
            } catch {
                throw .usage("--authenticate-endpoint \(displaySafe(text, limit: 200)): \(error.message)", rule: .journeyEndpoint)
            }
        }
        if let text = flags.cookieName ?? sameIssuer?.amCookieName {
            guard let name = AMCookieName(text) else {
                throw .usage(
                    "--cookie-name must be a cookie name (RFC 6265: letters, digits and !#$%&'*+-.^_`|~)", rule: .journeyCookieName)
            }
            options.cookieName = name
        }
        if let name = flags.otp ?? sameIssuer?.otp { options.otpAccount = try otpName(name, option: "otp") }
        if let name = flags.otpEnroll { options.otpEnroll = try otpName(name, option: "otp-enroll") }
        options.otpReplace = flags.otpReplace
        if let name = flags.idp ?? sameIssuer?.idp { options.identityProvider = try identityProvider(name) }
        if let text = flags.webAuthnOrigin ?? sameIssuer?.webAuthnOrigin { options.webAuthnOrigin = try webAuthnOrigin(text) }
        return (options, flags.answers)
    }

    /// `--webauthn-origin`: an origin (`https://host[:port]`, http only for a loopback host), no path,
    /// query or fragment.
    package static func webAuthnOrigin(_ text: String) throws(PingCLIError) -> String {
        let shown = displaySafe(text, limit: 200)
        guard let url = try? EndpointURL(text), url.path.isEmpty || url.path == "/", url.query == nil, !text.containsText("#"),
            url.scheme == "https" || ["127.0.0.1", "localhost", "[::1]"].contains(url.host)
        else {
            throw .usage(
                "--webauthn-origin \(shown) is not an origin: give https://HOST[:PORT], the address people open AM at, nothing after it",
                rule: .webauthnOrigin)
        }
        return url.origin
    }

    /// An OTP account's name, through the same gate as `otp add --name`.
    package static func otpName(_ name: String, option: String) throws(PingCLIError) -> String {
        do { return try OTPAuthURI.checkedName(name) } catch { throw .usage("--\(option): \(error.message)", rule: error.rule) }
    }

    /// `--idp NAME`: AM's name for a social identity provider configuration (printable, short).
    package static func identityProvider(_ name: String) throws(PingCLIError) -> String {
        guard !name.isEmpty, name.utf8.count <= 256, name.utf8.allSatisfy({ (0x21..<0x7F).contains($0) }) else {
            throw .usage(
                "--idp must name one of the journey's identity providers: printable text without spaces, at most 256 bytes",
                rule: .journeyIdpUnknown)
        }
        return name
    }

    /// `--answers FILE` through the file gate (a secret: this user's, closed to group and others).
    package static func answers(_ path: String) throws(PingCLIError) -> JourneyAnswersFile {
        let shown = displaySafe(path, limit: 200)
        guard var bytes = try FileAdvice.worded(try FileSystem.read(path, limit: 64 * 1024 + 1, protection: .secret)) else {
            throw .usage("--answers \(shown) does not exist: give the file of PROMPT=VALUE lines", rule: .journeyAnswersFile)
        }
        defer { FileSystem.wipe(&bytes) }
        do {
            return try JourneyAnswersFile(bytes)
        } catch {
            throw .usage("--answers \(shown): \(error.message)", rule: .journeyAnswersFile)
        }
    }

    /// The terminal answers are typed on: standard input when it is one, else the controlling terminal.
    package static func terminal(_ context: CommandContext) -> TerminalInput? {
        let console = context.console
        if context.inputIsTerminal { return TerminalInput.terminal(context.input, echo: { console.writeErr($0) }) }
        guard let descriptor = context.openTerminal() else { return nil }
        return TerminalInput.terminal(descriptor, echo: { console.writeErr($0) })
    }
}
