import Foundation
import PingEmulator
import Testing

@testable import PingBase
@testable import PingCommands
@testable import PingFlowCore
@testable import PingIntegrations
@testable import PingLogin
@testable import PingPlatform
@testable import PingSession

#if canImport(Glibc)
    import Glibc
#endif

/// kubectl's exec plugin and git's credential helper sign in by themselves when no session is usable and
/// the caller may prompt: the decision's rules, the sign-in it runs (prompts on stderr, the tool's answer
/// alone on stdout) and the refusals (no browser, exit 4, the rule that decided).
@Suite("credential helpers sign in on first use, in-process")
struct HelperSignInTests {
    static let interactiveInfo = #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","spec":{"interactive":true}}"#
    static let quietInfo = #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","spec":{"interactive":false}}"#
    /// Debian's kubectl 1.20: v1beta1 without spec.interactive.
    static let oldInfo = #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","spec":{}}"#

    /// A terminal double: a pipe's read end holding `typed` (what the person types), then end of input.
    func terminal(typing typed: String = "") -> Int32 {
        var ends: [Int32] = [0, 0]
        pipe(&ends)
        _ = typed.withCString { write(ends[1], $0, strlen($0)) }
        close(ends[1])
        return ends[0]
    }

    /// A harness that was never logged in, and the environment that names its issuer and client (a
    /// kubeconfig's exec `env:` on a new machine).
    func newMachine() throws -> (FlowHarness, [String: String]) {
        let harness = try FlowHarness()
        return (harness, ["PINGCLI_ISSUER": harness.emulator.issuer, "PINGCLI_CLIENT_ID": "pingcli-test"])
    }

    /// `HelperSignIn.fresh` called directly, so a refusal's rule can be asserted.
    func attempt(
        _ harness: FlowHarness, _ caller: HelperSignIn.Caller, environment: [String: String]
    ) throws -> Result<FreshTokens, PingCLIError> {
        let (context, _) = try harness.context()
        let signIn = try HelperSignIn(caller: caller, environment: Environment(environment), context: context)
        let provider = TokenProvider(profile: try ProfileName("default"), context: signIn.context.forSession)
        return Result { () throws(PingCLIError) in try signIn.fresh(provider, minimumTTL: 30) }
    }

    func authorizationCodeGrants(_ emulator: Emulator) -> Int {
        emulator.requests(to: .token).filter { $0.grantType == "authorization_code" }.count
    }

    @Test("helper-sign-in: an interactive kubectl on a new machine signs in once and gets the ExecCredential on stdout, prompts on stderr")
    func kubectlSignsIn() throws {
        let (harness, environment) = try newMachine()
        harness.terminal = terminal()
        let run = harness.run(
            ["token", "--format", "exec-credential"],
            environment: environment.merging(["KUBERNETES_EXEC_INFO": Self.interactiveInfo]) { $1 })
        #expect(run.status == 0, "\(run)")
        let newest = try #require(harness.emulator.issuedAccessTokens.last)
        // Only the ExecCredential on stdout: it parses as one JSON object.
        let credential = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run)")
        #expect(credential["kind"] as? String == "ExecCredential")
        #expect((credential["status"] as? [String: Any])?["token"] as? String == newest)
        #expect(run.stderr.contains("signing in for kubectl") && run.stderr.contains("Logged in to"), "\(run)")
        #expect(harness.browser.opened.count == 1)
        #expect(authorizationCodeGrants(harness.emulator) == 1)
        // Signed in now: the next call is a cache hit, with no browser.
        let again = harness.run(
            ["token", "--format", "exec-credential"],
            environment: environment.merging(["KUBERNETES_EXEC_INFO": Self.interactiveInfo]) { $1 })
        #expect(again.status == 0 && again.stderr.isEmpty, "\(again)")
        #expect(harness.browser.opened.count == 1)
    }

    @Test("helper-sign-in-saved-login: a session whose refresh token was rejected signs in again with the profile's saved scopes")
    func sessionExpiredUsesSavedSettings() throws {
        let harness = try loggedIn(lifetime: 1)
        #expect(harness.login(["--scope", "openid profile"]).status == 0)
        harness.clock.advance(by: 3600)
        harness.emulator.faults = Faults(failNextRefreshes: 1)
        harness.terminal = terminal()
        let run = harness.run(["token", "--format", "exec-credential", "--id-token"], environment: ["KUBERNETES_EXEC_INFO": Self.oldInfo])
        // kubectl 1.20 sends no spec.interactive; it hands over its terminal only when interactive.
        #expect(run.status == 4, "stdin is no terminal here: \(run)")
        #expect(harness.browser.opened.count == 2, "the two logins only")
        harness.inputIsTerminal = true
        let signedIn = harness.run(
            ["token", "--format", "exec-credential", "--id-token"], environment: ["KUBERNETES_EXEC_INFO": Self.oldInfo])
        #expect(signedIn.status == 0, "\(signedIn)")
        #expect(harness.browser.opened.count == 3)
        let scope = harness.emulator.requests(to: .par).last?.form["scope"]
        #expect(scope == "openid profile", "the saved scopes, not login's default")
        #expect(signedIn.stderr.contains("Signing in to \(harness.emulator.issuer), the issuer saved in profile"), "\(signedIn)")
    }

    @Test(
        "helper-sign-in-target: an interactive kubectl asking for a narrower token (--scope) with no usable session signs the session in, then narrows it"
    )
    func narrowerTokenSignsInFirst() throws {
        let harness = try loggedIn(lifetime: 1)
        harness.clock.advance(by: 3600)
        harness.emulator.faults = Faults(failNextRefreshes: 1)
        harness.terminal = terminal()
        let run = harness.run(
            ["token", "--format", "exec-credential", "--scope", "openid"], environment: ["KUBERNETES_EXEC_INFO": Self.interactiveInfo])
        #expect(run.status == 0, "\(run)")
        #expect(authorizationCodeGrants(harness.emulator) == 2, "the first login and the helper's")
        let narrowing = try #require(harness.emulator.requests(to: .token).last)
        #expect(narrowing.grantType == "refresh_token" && narrowing.form["scope"] == "openid", "\(narrowing.form)")
        let credential = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run)")
        #expect((credential["status"] as? [String: Any])?["token"] as? String == harness.emulator.issuedAccessTokens.last)
    }

    @Test("helper-sign-in-device: a profile that signs in with a device code signs in that way again")
    func deviceProfile() throws {
        let harness = try FlowHarness {
            $0.deviceInterval = 1
            $0.accessTokenLifetime = 1
        }
        #expect(harness.login(["--device"]).status == 0)
        harness.clock.advance(by: 3600)
        harness.emulator.faults = Faults(failNextRefreshes: 1)
        harness.terminal = terminal()
        let run = harness.run(["token", "--format", "exec-credential"], environment: ["KUBERNETES_EXEC_INFO": Self.interactiveInfo])
        #expect(run.status == 0, "\(run)")
        let deviceGrants = harness.emulator.requests(to: .token).filter { $0.grantType == "urn:ietf:params:oauth:grant-type:device_code" }
        #expect(Set(deviceGrants.map(\.form["device_code"])).count == 2, "a second device code")
        #expect(authorizationCodeGrants(harness.emulator) == 0)
    }

    @Test(
        "helper-sign-in-unverified: after a logout, kubectl's sign-in on a terminal uses the saved settings without a question; once profile.json is edited, the sealed record refuses it (exit 4) and no browser opens"
    )
    func loggedOutAsksFirst() throws {
        let harness = try loggedIn()
        #expect(harness.run(["logout"]).status == 0)
        harness.errorIsTerminal = true
        harness.terminal = terminal()
        let info = ["KUBERNETES_EXEC_INFO": Self.interactiveInfo]
        let again = harness.run(["token", "--format", "exec-credential"], environment: info)
        #expect(again.status == 0 && again.stdout.contains(harness.emulator.issuedAccessTokens.last ?? "-"), "\(again)")
        #expect(!again.stderr.contains("[y/N]"), "\(again)")
        #expect(harness.browser.opened.count == 2)

        #expect(harness.run(["logout"]).status == 0)
        let path = harness.profileDirectory + "/profile.json"
        let text = try #require(FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) })
        try Data(text.replacingOccurrences(of: "\"pingcli-test\"", with: "\"pingcli-edited\"").utf8).write(to: URL(fileURLWithPath: path))
        harness.clock.advance(by: 1)
        harness.terminal = terminal(typing: "y\n")
        let refused = harness.run(["token", "--format", "exec-credential"], environment: info)
        #expect(refused.status == 4 && refused.stdout.isEmpty && refused.rule == .profileBinding, "\(refused)")
        #expect(refused.stderr.contains("changed outside pingcli"), "\(refused)")
        #expect(harness.browser.opened.count == 2, "no browser for the edited profile")
    }

    @Test("helper-sign-in-git: git-credential get signs in when git may prompt, and answers with the new token")
    func gitSignsIn() throws {
        let harness = try loggedIn()
        #expect(harness.login(["--git-host", "git.example.com"]).status == 0)
        harness.emulator.faults = Faults(failNextRefreshes: 1)
        harness.clock.advance(by: 7200)
        harness.terminal = terminal()
        harness.input = terminal(typing: "protocol=https\nhost=git.example.com\n\n")
        let run = harness.run(["git-credential", "get"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.hasPrefix("username=oauth2\npassword=\(harness.emulator.issuedAccessTokens.last ?? "-")\n"), "\(run)")
        #expect(run.stderr.contains("signing in for git"), "\(run)")
        #expect(authorizationCodeGrants(harness.emulator) == 3)
    }

    @Test(
        "helper refusals: each rule gives exit 4 with the hint and its reason, and no browser",
        arguments: [
            (Rule.execNotInteractive, HelperSignIn.Caller.kubectl(execInfo: false, interactive: nil), [String: String](), true),
            (.execNotInteractive, .kubectl(execInfo: true, interactive: false), [:], true),
            (.execNotInteractive, .kubectl(execInfo: true, interactive: nil), [:], true),
            (.helperSignInOff, .kubectl(execInfo: true, interactive: true), ["PINGCLI_HELPER_LOGIN": "never"], true),
            (.gitPromptForbidden, .git, ["GIT_TERMINAL_PROMPT": "0"], true),
            (.gitPromptForbidden, .git, ["GIT_TERMINAL_PROMPT": "false"], true),
            (.helperNoTerminal, .kubectl(execInfo: true, interactive: true), [:], false),
            (.helperNoTerminal, .git, [:], false),
        ])
    func refusals(rule: Rule, caller: HelperSignIn.Caller, environment: [String: String], hasTerminal: Bool) throws {
        let (harness, settings) = try newMachine()
        if hasTerminal { harness.terminal = terminal() }
        let result = try attempt(harness, caller, environment: settings.merging(environment) { $1 })
        guard case .failure(let error) = result else {
            Issue.record("signed in: \(result)")
            return
        }
        #expect(error.rule == rule, "\(error)")
        #expect(error.status == .loginRequired)
        #expect(error.message.hasPrefix("not logged in for profile \"default\""), "the hint comes first: \(error)")
        #expect(harness.browser.opened.isEmpty && harness.emulator.requests(to: .token).isEmpty)
    }

    @Test("helper-no-settings: no saved profile and no PINGCLI_ISSUER: the hint, no sign-in")
    func noSettings() throws {
        let harness = try FlowHarness()
        harness.terminal = terminal()
        let result = try attempt(harness, .kubectl(execInfo: true, interactive: true), environment: [:])
        guard case .failure(let error) = result else {
            Issue.record("signed in: \(result)")
            return
        }
        #expect(error.rule == .helperNoSettings && error.status == .loginRequired, "\(error)")
        #expect(harness.browser.opened.isEmpty)
    }

    @Test(
        "helper-sign-in-failed: a caller that waited while another call's sign-in failed opens no other (and passes the note on); a later call signs in"
    )
    func failedSignInIsNotRepeated() throws {
        let (harness, environment) = try newMachine()
        harness.terminal = terminal()
        // Another call's sign-in failed after this caller began to wait: what it left in the lock file.
        let (context, _) = try harness.context()
        let other = try StoreAdvice.worded(context.store.takeLock(.default))
        other.note(.signInFailed(at: harness.clock.now + 5))
        other.unlock()
        for _ in 1...2 {
            let result = try attempt(harness, .kubectl(execInfo: true, interactive: true), environment: environment)
            guard case .failure(let error) = result else {
                Issue.record("signed in: \(result)")
                return
            }
            #expect(error.rule == .helperSignInFailed && error.status == .loginRequired, "\(error)")
        }
        #expect(harness.browser.opened.isEmpty)
        // A call that starts after that failure is a new attempt by the person: it signs in.
        harness.clock.advance(by: 10)
        #expect(try attempt(harness, .kubectl(execInfo: true, interactive: true), environment: environment).get().tokens.idToken != nil)
        #expect(harness.browser.opened.count == 1)
    }

    @Test("helper-sign-in-failed-noted: a sign-in that fails leaves its time in the lock file for the callers waiting behind it")
    func failedSignInIsNoted() throws {
        let (harness, environment) = try newMachine()
        harness.terminal = terminal()
        harness.emulator.faults = Faults(authorizationResponseOverrides: ["error": "access_denied", "code": nil])
        let result = try attempt(harness, .kubectl(execInfo: true, interactive: true), environment: environment)
        guard case .failure(let error) = result else {
            Issue.record("signed in: \(result)")
            return
        }
        #expect(error.rule != .helperSignInFailed, "\(error)")
        #expect(harness.browser.opened.count == 1)
        // Kept by every holder after it (a refresh or a plain token that takes the lock meanwhile).
        let (context, _) = try harness.context()
        for _ in 1...2 { try StoreAdvice.worded(context.store.takeLock(.default)).unlock() }
        let record = try String(contentsOfFile: harness.paths.lockFile(try ProfileName("default")), encoding: .utf8)
        #expect(record.hasPrefix("pid \(getpid()) "), "\(record)")
        #expect(LockNote(record: record) == .signInFailed(at: harness.clock.now), "\(record)")
    }

    @Test("helper-machine-profile: a logged-out client-credentials profile gets the hint, no browser and no grant")
    func machineProfile() throws {
        let harness = try FlowHarness { $0.clients[0].clientSecret = "machine-secret-for-tests" }
        let secret = ["PINGCLI_CLIENT_SECRET": "machine-secret-for-tests"]
        let login = harness.run(
            ["login", "--client-credentials", "--issuer", harness.emulator.issuer, "--client-id", "pingcli-test"], environment: secret)
        #expect(login.status == 0, "\(login)")
        #expect(harness.run(["logout"]).status == 0)
        harness.terminal = terminal()
        let result = try attempt(harness, .kubectl(execInfo: true, interactive: true), environment: secret)
        guard case .failure(let error) = result else {
            Issue.record("signed in: \(result)")
            return
        }
        #expect(error.rule == .helperMachineProfile && error.status == .loginRequired, "\(error)")
        #expect(harness.browser.opened.isEmpty && harness.emulator.requests(to: .token).count == 1, "only the first login's grant")
    }

    @Test("helper-sign-in-gate: PINGCLI_HELPER_LOGIN takes auto or never; anything else is a usage error")
    func optOutGate() throws {
        let caller = HelperSignIn.Caller.kubectl(execInfo: true, interactive: true)
        #expect(try HelperSignIn.decide(caller, environment: ["PINGCLI_HELPER_LOGIN": "auto"], inputIsTerminal: false) == .allowed)
        #expect(try HelperSignIn.decide(caller, environment: [:], inputIsTerminal: false) == .allowed)
        #expect(try HelperSignIn.decide(.kubectl(execInfo: true, interactive: nil), environment: [:], inputIsTerminal: true) == .allowed)
        #expect(try HelperSignIn.decide(.git, environment: ["GIT_TERMINAL_PROMPT": "1"], inputIsTerminal: false) == .allowed)
        for value in ["yes", "Never", "off\u{1b}[2J"] {
            #expect(throws: PingCLIError.self) {
                try HelperSignIn.decide(caller, environment: ["PINGCLI_HELPER_LOGIN": value], inputIsTerminal: false)
            }
        }
        let (harness, settings) = try newMachine()
        harness.terminal = terminal()
        let run = harness.run(
            ["token", "--format", "exec-credential"],
            environment: settings.merging(["KUBERNETES_EXEC_INFO": Self.interactiveInfo, "PINGCLI_HELPER_LOGIN": "sometimes"]) { $1 })
        #expect(run.status == 2 && run.rule == .helperSignInGate, "\(run)")
        #expect(harness.browser.opened.isEmpty)
    }

    @Test("helper-plain-token: token without exec-credential never signs in, whatever the terminal")
    func plainTokenNeverSignsIn() throws {
        let (harness, settings) = try newMachine()
        harness.terminal = terminal()
        harness.inputIsTerminal = true
        let run = harness.run(["token", "--raw"], environment: settings.merging(["KUBERNETES_EXEC_INFO": Self.interactiveInfo]) { $1 })
        #expect(run.status == 4 && harness.browser.opened.isEmpty, "\(run)")
    }
}
