import PingBase
import PingFlowCore
import PingOAuth
import PingPlatform
import PingSession
import PingTerminal

#if canImport(Glibc)
    import Glibc
#endif

/// A credential helper that signs in by itself: `token --format exec-credential` under an interactive
/// kubectl, `git-credential get` when git may prompt. When no session is usable (logged out, never
/// logged in on this machine, the refresh token rejected), it runs the profile's saved login (the
/// browser, or the device code where the profile signed in that way, with its saved settings) with
/// every prompt on stderr, since stdout belongs to the tool's protocol, and then answers the tool.
///
/// One sign-in for many callers: it runs under the profile's lock, and a caller that waited for the
/// lock reads the cache again before signing in itself. A caller that may not sign in (kubectl not
/// interactive, git forbidding prompts, no terminal, `PINGCLI_HELPER_LOGIN=never`) never opens a
/// browser: it gets the one-line hint, exit 4, with the reason.
package struct HelperSignIn {
    /// Who started pingcli, as far as it says.
    package enum Caller: Equatable, Sendable {
        /// kubectl's exec plugin: whether `KUBERNETES_EXEC_INFO` was set, and its `spec.interactive`
        /// (nil when the object has none: kubectl before 1.22 sends v1beta1 without it).
        case kubectl(execInfo: Bool, interactive: Bool?)
        /// git's credential helper (`get`).
        case git
        /// `pingcli setup kubectl`, run by a person: signs in on a terminal whatever PINGCLI_HELPER_LOGIN says.
        case setup
        /// The AWS CLI or an SDK running `credential_process` (`aws credential-process`): it reads stderr
        /// only when the process fails, so the sign-in talks to the terminal itself.
        case aws

        package var name: String {
            switch self {
            case .kubectl: return "kubectl"
            case .git: return "git"
            case .setup: return "pingcli setup kubectl"
            case .aws: return "the AWS CLI"
            }
        }
    }

    /// Whether the caller may sign in, and the rule that decided (the names its tests start with).
    package struct Decision: Equatable, Sendable {
        package var signIn: Bool
        package var rule: Rule
        /// Why not, for the hint; empty when signing in.
        package var reason: String

        package static let allowed = Decision(signIn: true, rule: .helperSignIn, reason: "")
        /// A plain `token`: it passes the failure on (`not-logged-in`, `session-expired`) and never signs in.
        package static let plainToken = Decision(signIn: false, rule: .notLoggedIn, reason: "")
        package static let noTerminal = Decision(
            signIn: false, rule: .helperNoTerminal, reason: "there is no terminal (/dev/tty) to sign in on")
    }

    /// The opt-out for IDEs and background callers that run kubectl or git with a terminal but
    /// should never open a browser (kubelogin #904, #1330): `never`; `auto` (or unset) is the default.
    package static let environmentName = "PINGCLI_HELPER_LOGIN"

    /// How long a caller that may sign in waits for the profile's lock: longer than another caller's
    /// sign-in may take (the browser's 300 s, a device code's usual 600 s), so it waits for that one
    /// sign-in instead of opening another.
    package static let lockWait: Double = 660

    /// What the caller and the environment allow, before any terminal is looked for. Pure.
    package static func decide(
        _ caller: Caller, environment: Environment, inputIsTerminal: Bool
    ) throws(PingCLIError) -> Decision {
        if caller == .setup { return .allowed }
        switch environment[environmentName] ?? "" {
        case "", "auto": break
        case "never": return Decision(signIn: false, rule: .helperSignInOff, reason: "\(environmentName) is never")
        case let value:
            throw .usage("\(environmentName) must be auto or never, not \"\(displaySafe(value, limit: 40))\"", rule: .helperSignInGate)
        }
        switch caller {
        case .kubectl(execInfo: false, _):
            return Decision(
                signIn: false, rule: .execNotInteractive,
                reason: "KUBERNETES_EXEC_INFO is not set, so no kubectl said it may prompt")
        case .kubectl(_, interactive: false):
            return Decision(signIn: false, rule: .execNotInteractive, reason: "kubectl says it is not interactive")
        case .kubectl(_, interactive: nil) where !inputIsTerminal:
            // kubectl before 1.22 hands its stdin to the plugin only when it is interactive.
            return Decision(signIn: false, rule: .execNotInteractive, reason: "kubectl handed over no terminal")
        case .kubectl, .setup, .aws:
            return .allowed
        case .git:
            // git's own switch for prompting (git_env_bool: 0, false, no, off and empty are false).
            if let prompt = environment["GIT_TERMINAL_PROMPT"], ["", "0", "false", "no", "off"].contains(prompt.lowercased()) {
                return Decision(signIn: false, rule: .gitPromptForbidden, reason: "GIT_TERMINAL_PROMPT forbids prompting")
            }
            return .allowed
        }
    }

    /// The failures a sign-in mends: no session at all, or one nothing can extend. A damaged cache or a
    /// profile changed outside pingcli is not among them: those need a person's eyes on `login`.
    package static func mends(_ error: PingCLIError) -> Bool {
        error.rule == .notLoggedIn || error.rule == .sessionExpired
    }

    package let caller: Caller?
    package let decision: Decision
    package let environment: Environment
    /// The context for the command: a caller that may sign in waits `lockWait` for the profile's lock.
    package let context: CommandContext

    /// `caller` nil: a plain `token`, which never signs in.
    package init(caller: Caller?, environment: Environment, context: CommandContext) throws(PingCLIError) {
        self.caller = caller
        self.environment = environment
        var context = context
        if let caller {
            decision = try Self.decide(caller, environment: environment, inputIsTerminal: context.inputIsTerminal)
            if decision.signIn { context.store.lockTimeout = max(context.store.lockTimeout, Self.lockWait) }
        } else {
            decision = .plainToken
        }
        self.context = context
    }

    /// `provider.fresh`, or with a `target` a narrower token (`--scope`, `--resource`, `--audience`) from
    /// `provider`'s session; when no session is usable and the caller may, the session's sign-in first.
    package func fresh(_ provider: TokenProvider, target: TokenTarget? = nil, minimumTTL: Double) throws(PingCLIError) -> FreshTokens {
        let started = context.clock()
        do {
            return try Self.get(provider, target: target, minimumTTL: minimumTTL)
        } catch  where caller != nil && Self.mends(error) {
            return try signedIn(error, provider: provider, target: target, minimumTTL: minimumTTL, started: started)
        }
    }

    /// The session's token, or the narrower one for `target`. The narrower one's provider is called
    /// apart (never inlined), so a plain `token`'s stack frame does not hold its values.
    private static func get(_ session: TokenProvider, target: TokenTarget?, minimumTTL: Double) throws(PingCLIError) -> FreshTokens {
        guard let target else { return try session.fresh(minimumTTL: minimumTTL) }
        return try targeted(session, target: target, minimumTTL: minimumTTL)
    }

    @inline(never)
    private static func targeted(_ session: TokenProvider, target: TokenTarget, minimumTTL: Double) throws(PingCLIError) -> FreshTokens {
        try TargetedTokenProvider(base: session, target: target).fresh(minimumTTL: minimumTTL)
    }

    /// `fresh` when the session could not give a token and this caller may sign in (`recover`), then
    /// the token asked for. Never inlined: a cache hit's stack frame does not hold a sign-in's values.
    @inline(never)
    private func signedIn(
        _ error: PingCLIError, provider: TokenProvider, target: TokenTarget?, minimumTTL: Double, started: Double
    ) throws(PingCLIError) -> FreshTokens {
        let signedIn = try recover(error, provider: provider, minimumTTL: minimumTTL, started: started)
        guard target != nil else { return signedIn }
        // A new key handle, as in `recover`: a first sign-in makes the key.
        var session = TokenProvider(profile: provider.profileName, context: context.forSession)
        session.kind = provider.kind
        return try Self.get(session, target: target, minimumTTL: minimumTTL)
    }

    /// `started`: when this call began, so a sign-in that failed since (while it waited for the lock,
    /// here or in `provider.fresh`) is not repeated.
    private func recover(
        _ error: PingCLIError, provider: TokenProvider, minimumTTL: Double, started: Double
    ) throws(PingCLIError) -> FreshTokens {
        var decision = self.decision
        let terminal = decision.signIn ? context.openTerminal() : nil
        defer { if let terminal { close(terminal) } }
        if decision.signIn && terminal == nil { decision = .noTerminal }
        let name = provider.profileName
        if decision.signIn {
            let saved = try? context.store.readProfile(name)
            decision = signInDecision(saved: saved != nil, client: saved?.grantType == .clientCredentials) ?? decision
        }
        guard decision.signIn, let terminal else {
            throw PingCLIError(
                .loginRequired, "\(error.message) (\(caller?.name ?? "pingcli") did not sign in: \(decision.reason))", rule: decision.rule)
        }
        let lock = try provider.lock()
        defer { lock.unlock() }
        // Another caller may have signed in while this one waited for the lock. Read with a new key handle:
        // this one's found no key before that first sign-in made one.
        var current = TokenProvider(profile: name, context: context.forSession)
        current.kind = provider.kind
        if let (profile, tokens) = try? current.cached(lockHeld: true),
            tokens.isFresh(current.kind, now: context.clock(), minimumTTL: minimumTTL)
        {
            return FreshTokens(tokens: tokens, profile: profile)
        }
        // A sign-in another caller started while this one waited failed (closed tab, denied, timed out):
        // the person saw it; do not open another for every caller that was waiting.
        if case .signInFailed(let failedAt)? = lock.previousNote, failedAt >= started {
            throw PingCLIError(
                .loginRequired,
                "\(error.message) (\(caller?.name ?? "pingcli") did not sign in: the sign-in another call started meanwhile did not finish)",
                rule: .helperSignInFailed)
        }
        let signing = signingContext(name, terminal: terminal)
        signing.console.err(
            "pingcli: profile \"\(name)\" has no usable session: signing in for \(caller?.name ?? "pingcli")\(caller == .setup ? "" : " (\(Self.environmentName)=never turns this off)")"
        )
        do {
            // The profile's saved login: no flag given, the environment and the saved settings decide.
            let plan = try LoginCommand.plan(LoginPlan.Flags(), profile: name, environment: environment, context: signing)
            try LoginCommand.run(plan, context: signing)
        } catch {
            lock.note(.signInFailed(at: context.clock()))
            throw error
        }
        // Again with a new key handle: a first sign-in makes the key.
        current = TokenProvider(profile: name, context: context.forSession)
        current.kind = provider.kind
        let (profile, tokens) = try current.cached(lockHeld: true)
        if current.kind == .id && tokens.idToken == nil { throw current.noIDToken() }
        return FreshTokens(tokens: tokens, profile: profile)
    }

    /// Why a sign-in cannot help this profile (`saved`: it has saved settings; `client`: it signs in as a
    /// client), or nil when it can.
    private func signInDecision(saved: Bool, client: Bool) -> Decision? {
        if !saved && !(has("PINGCLI_ISSUER") && has("PINGCLI_CLIENT_ID")) {
            return Decision(
                signIn: false, rule: .helperNoSettings, reason: "the profile has no saved settings and PINGCLI_ISSUER is not set")
        }
        if client {
            // A machine's login needs its secret, not a person: nothing to do on a terminal.
            return Decision(
                signIn: false, rule: .helperMachineProfile, reason: "the profile signs in as a client (client credentials), not a person"
            )
        }
        return nil
    }

    /// The context a sign-in runs in: under the lock already held, every prompt and line on stderr (stdout
    /// is the tool's protocol), the terminal as its input.
    private func signingContext(_ name: ProfileName, terminal: Int32) -> CommandContext {
        var signing = context
        signing.store.heldLock = name
        let console = context.console
        signing.console = Console(
            writeOut: console.writeErr, writeErr: console.writeErr, outputIsTerminal: console.errorIsTerminal,
            errorIsTerminal: console.errorIsTerminal)
        if caller == .aws {
            // The AWS CLI keeps the helper's stderr until it fails: the person reads the terminal instead.
            let write: @Sendable (String) -> Void = { Console.writeAll(terminal, $0) }
            signing.console = Console(writeOut: write, writeErr: write, outputIsTerminal: true, errorIsTerminal: true)
        }
        signing.input = terminal
        signing.inputIsTerminal = true
        return signing
    }

    private func has(_ name: String) -> Bool { !(environment[name] ?? "").isEmpty }
}
