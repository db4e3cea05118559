import Foundation
import PingEmulator
import Testing

/// The whole login through the built binary against the emulator on a loopback port, with the
/// browser double standing in for xdg-open.
@Suite("login and token, end to end")
struct LoginEndToEndTests {
    @Test("login signs in through the browser double, with PKCE S256, state and nonce, and caches encrypted tokens")
    func fullLogin() throws {
        // The classic request with everything in the browser's URL (the pushed one: par-browser-url).
        let (emulator, sandbox) = try emulatorAndSandbox { $0.pushedAuthorization = .off }
        let run = sandbox.login(emulator)
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.isEmpty, "login prints nothing on stdout")
        #expect(run.stderr.contains("Logged in to \(emulator.issuer) as Demo User"))

        // The browser was sent to the authorization endpoint, and that request had everything RFC 8252 asks.
        #expect(sandbox.browserLog.first?.hasPrefix(emulator.issuer + "/authorize?") == true)
        let authorize = try #require(emulator.requests(to: .authorize).first)
        #expect(authorize.query["response_type"] == "code")
        #expect(authorize.query["code_challenge_method"] == "S256")
        #expect(authorize.query["code_challenge"]?.count == 43)
        #expect(authorize.query["state"]?.count == 43)
        #expect(authorize.query["nonce"]?.count == 43)
        let redirect = try #require(authorize.query["redirect_uri"])
        #expect(redirect.hasPrefix("http://127.0.0.1:") && redirect.hasSuffix("/callback"))
        #expect(run.stderr.contains(emulator.issuer + "/authorize?"), "the URL is printed for the user too")

        let exchange = try #require(emulator.requests(to: .token).first)
        #expect(exchange.form["grant_type"] == "authorization_code")
        #expect(exchange.form["code_verifier"]?.count == 43)
        #expect(exchange.form["redirect_uri"] == redirect)
        #expect(emulator.requests(to: .token).count == 1)

        // The cache: private, encrypted, key outside the config directory, profile without secrets.
        let accessToken = try #require(emulator.issuedAccessTokens.last)
        let refreshToken = try #require(emulator.issuedRefreshTokens.last)
        #expect(fileMode(sandbox.profileDirectory) == 0o700)
        #expect(fileMode(sandbox.stateDirectory + "/tokens.enc") == 0o600)
        #expect(fileMode(sandbox.keyFile) == 0o600)
        let cache = try Data(contentsOf: URL(fileURLWithPath: sandbox.stateDirectory + "/tokens.enc"))
        #expect(cache.range(of: Data(accessToken.utf8)) == nil && cache.range(of: Data(refreshToken.utf8)) == nil)
        let profile = try String(contentsOfFile: sandbox.profileDirectory + "/profile.json", encoding: .utf8)
        #expect(profile.contains(emulator.issuer) && !profile.contains(accessToken) && !profile.contains(refreshToken))
    }

    @Test("token --raw prints exactly the access token the emulator issued, without a request")
    func tokenRaw() throws {
        let (emulator, sandbox) = try loggedIn()
        let requestsAfterLogin = emulator.requests.count
        let run = sandbox.run(["token", "--raw"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout == emulator.newestTokenLine)
        #expect(run.stderr.isEmpty)
        #expect(emulator.requests.count == requestsAfterLogin, "a fresh token needs no network")
    }

    @Test("token --format summary summarises the session and prints no secret")
    func tokenSummary() throws {
        let (emulator, _, run) = try loggedIn(running: ["token", "--format", "summary"])
        #expect(run.stdout.contains("profile:       default"))
        #expect(run.stdout.contains("(Demo User)"))
        #expect(run.stdout.contains("refresh token: held"))
        for secret in emulator.issuedAccessTokens + emulator.issuedRefreshTokens {
            #expect(!run.stdout.contains(secret) && !run.stderr.contains(secret))
        }
    }

    @Test("refresh-once: an access token inside the threshold causes exactly one refresh, and the rotated refresh token is kept")
    func expiringTokenRefreshesOnce() throws {
        let (emulator, sandbox, _) = try expiringSession()
        let first = sandbox.run(["token", "--raw"])
        #expect(first.status == 0, "\(first)")
        let refreshes = emulator.requests(to: .token).filter { $0.form["grant_type"] == "refresh_token" }
        #expect(refreshes.count == 1)
        #expect(first.stdout == emulator.newestTokenLine)
        #expect(emulator.issuedAccessTokens.count == 2)

        // The new token is fresh: no further refresh.
        let second = sandbox.run(["token", "--raw"])
        #expect(second.stdout == first.stdout)
        #expect(emulator.requests(to: .token).filter { $0.form["grant_type"] == "refresh_token" }.count == 1)

        // The rotated refresh token was saved: a forced refresh uses it, and the emulator accepts it.
        emulator.accessTokenLifetime = 3600
        let forced = sandbox.run(["token", "--raw", "--min-ttl", "7200"])
        #expect(forced.status == 0, "\(forced)")
        let used = emulator.requests(to: .token).filter { $0.form["grant_type"] == "refresh_token" }.map { $0.form["refresh_token"] }
        #expect(used.count == 2)
        #expect(used.last == emulator.issuedRefreshTokens.dropLast().last)
    }

    @Test("token before any login exits 4 with the command to run")
    func notLoggedIn() {
        let run = Sandbox().run(["token", "--raw"])
        #expect(run.status == 4)
        #expect(run.stdout.isEmpty)
        #expect(
            run.stderr
                == "pingcli: not logged in for profile \"default\": run pingcli login --profile default --issuer URL --client-id ID\n")
    }

    @Test("a PingFederate-shaped server works the same way")
    func pingFederateLayout() throws {
        let (emulator, sandbox) = try emulatorAndSandbox { $0.layout = .pingFederate }
        let run = sandbox.login(emulator)
        #expect(run.status == 0, "\(run)")
        #expect(sandbox.browserLog.first?.contains("/as/authorization.oauth2?") == true)
        #expect(sandbox.run(["token", "--raw"]).stdout == emulator.newestTokenLine)
    }

    @Test("the sign-in form: the browser double fills it in as a person would")
    func signInForm() throws {
        let (emulator, sandbox) = try emulatorAndSandbox { $0.signInMode = .form }
        let run = sandbox.login(emulator)
        #expect(run.status == 0, "\(run)")
    }

    @Test("profiles, environment variables and login parameters reach the server")
    func parametersAndProfiles() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        let run = sandbox.run(
            [
                "login", "--login-hint", "ada@example.com", "--acr-values", "mfa", "--prompt", "login", "--param", "ui_locales=fr CA",
                "--scope", "openid email",
            ],
            environment: ["PINGCLI_ISSUER": emulator.issuer, "PINGCLI_CLIENT_ID": "pingcli-test", "PINGCLI_PROFILE": "work"])
        #expect(run.status == 0, "\(run)")
        let authorize = try #require(emulator.authorizationRequestParameters.first)
        #expect(authorize["login_hint"] == "ada@example.com")
        #expect(authorize["acr_values"] == "mfa")
        #expect(authorize["prompt"] == "login")
        #expect(authorize["ui_locales"] == "fr CA")
        #expect(authorize["scope"] == "openid email")
        #expect(FileManager.default.fileExists(atPath: sandbox.root + "/config/pingcli/profiles/work/tokens.enc"))
        #expect(sandbox.run(["token", "--raw"]).status == 4, "the default profile is still empty")
        #expect(sandbox.run(["token", "--raw", "--profile", "work"]).status == 0)
        // Logging in again needs neither issuer nor client id: the profile remembers them.
        #expect(sandbox.run(["login", "--profile", "work"]).status == 0)
    }

    @Test("verbose output describes requests but never shows a token, code or verifier")
    func verboseKeepsSecrets() throws {
        let (emulator, sandbox) = try emulatorAndSandbox { $0.accessTokenLifetime = 20 }
        let login = sandbox.login(emulator, ["--verbose"])
        emulator.accessTokenLifetime = 3600
        let token = sandbox.run(["token", "--verbose", "--format", "summary"])
        #expect(login.status == 0 && token.status == 0)
        #expect(login.stderr.contains("> POST \(emulator.issuer)/token"))
        #expect(token.stderr.contains("> POST \(emulator.issuer)/token"))
        let exchange = try #require(emulator.requests(to: .token).first)
        let secrets =
            emulator.issuedAccessTokens + emulator.issuedRefreshTokens
            + [exchange.form["code"], exchange.form["code_verifier"]].compactMap { $0 }
        for secret in secrets {
            #expect(!login.stderr.contains(secret) && !token.stderr.contains(secret) && !token.stdout.contains(secret))
        }
    }
}

@Suite("browser launching, end to end")
struct BrowserEndToEndTests {
    @Test("browser-launch-failed: when xdg-open fails the user is told to open the URL, and the wait times out cleanly")
    func launcherFails() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        let run = sandbox.run(
            ["login", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--timeout", "2"],
            environment: ["BROWSER_FAIL": "1"])
        #expect(run.status == 1, "\(run)")
        #expect(run.stderr.contains("the browser launcher exited with status 3: open the URL above in a browser yourself"))
        #expect(run.rule == "login-timeout", "\(run)")
        #expect(emulator.requests(to: .token).isEmpty)
    }

    @Test("browser-missing: with no xdg-open at all the user is told to open the URL")
    func launcherMissing() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        let run = sandbox.run(
            ["login", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--timeout", "1"],
            environment: ["PATH": sandbox.root])
        #expect(run.status == 1)
        #expect(run.stderr.contains("cannot run xdg-open"))
        #expect(run.rule == "login-timeout", "\(run)")
    }

    @Test("--no-browser prints the URL and does not launch anything")
    func noBrowser() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        let run = sandbox.run(["login", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--no-browser", "--timeout", "1"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("Open this URL in a browser to sign in"))
        #expect(run.rule == "login-timeout", "\(run)")
        #expect(!run.stderr.contains("paste it here and press Enter"), "stdin is not a terminal: nobody to ask")
        #expect(sandbox.browserLog.isEmpty)
    }
}
