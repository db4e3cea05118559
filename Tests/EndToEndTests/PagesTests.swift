import Foundation
import PingEmulator
import Testing

/// The pages the browser shows after the redirect, as the browser double received them. With
/// `PINGCLI_PAGES_DIR` set (`make screenshots`), each page is also saved there for headless Chromium.
@Suite("browser pages, end to end")
struct PagesTests {
    /// Saves a page for `make screenshots` when asked to.
    func keep(_ page: String, as name: String) {
        guard let directory = ProcessInfo.processInfo.environment["PINGCLI_PAGES_DIR"] else { return }
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try? page.write(toFile: directory + "/" + name + ".html", atomically: true, encoding: .utf8)
    }

    func expectStaticAndThemed(_ page: String) {
        #expect(!page.lowercased().contains("<script") && !page.lowercased().contains(" on"), "no JavaScript")
        #expect(!page.contains("http://") && !page.contains("https://"), "no external resource")
        #expect(page.contains("@media (prefers-color-scheme: dark)") && page.contains("name=\"color-scheme\" content=\"light dark\""))
    }

    /// A login against an emulator with `faults`, the browser double saving the last page it showed: the
    /// run, the page, and the emulator and sandbox (which stops it).
    func loginShowingPage(_ faults: Faults = Faults(), _ extra: [String] = []) throws -> (CLIRun, String, Emulator, Sandbox) {
        let (emulator, sandbox) = try emulatorAndSandbox()
        emulator.faults = faults
        let pageFile = sandbox.root + "/page.html"
        let login = sandbox.login(emulator, extra, environment: ["BROWSER_PAGE": pageFile])
        return (login, try #require(sandbox.savedPage(pageFile), "\(login)"), emulator, sandbox)
    }

    @Test("page-success: names the account, the provider and the profile, never the code or a token, and follows dark mode")
    func success() throws {
        let (login, page, emulator, _) = try loginShowingPage(Faults(), ["--profile", "work"])
        #expect(login.status == 0, "\(login)")
        keep(page, as: "success")
        #expect(page.contains("<h1>Signed in</h1>"))
        #expect(
            page.contains(
                "You are signed in as <strong>Demo User</strong> at <strong>127.0.0.1:\(emulator.port)</strong> for pingcli profile <strong>work</strong>."
            ), "\(page)")
        let code = try #require(emulator.requests(to: .token).first?.form["code"])
        for secret in [code] + emulator.issuedAccessTokens + emulator.issuedRefreshTokens { #expect(!page.contains(secret)) }
        expectStaticAndThemed(page)
    }

    @Test("page-failure: the provider's error in plain sentences, without its markup or escape remnants, and what to do")
    func failure() throws {
        let (login, page, _, _) = try loginShowingPage(
            Faults(authorizationResponseOverrides: [
                "code": nil, "error": "access_denied",
                "error_description": #"the user &lt;b&gt;cancelled&lt;/b&gt; the request\nplease <i>try again</i> \"later\""#,
            ]))
        #expect(login.status == 1, "\(login)")
        keep(page, as: "failure")
        #expect(page.contains("<h1>Sign-in failed</h1>"))
        #expect(page.contains("<p>The sign-in did not complete. pingcli reports:</p>"))
        #expect(page.contains("the user cancelled the request please try again &quot;later&quot;"), "\(page)")
        #expect(!page.contains("&amp;lt;") && !page.contains("&lt;b&gt;") && !page.contains("\\n") && !page.contains("<i>"), "\(page)")
        #expect(page.contains("<p>Go back to the terminal: it shows the same message and what to do next. You can close this tab.</p>"))
        expectStaticAndThemed(page)
    }

    @Test("page-exchange-failed: a code the token endpoint refuses shows the failure in the browser, not success")
    func exchangeFailure() throws {
        let (login, page, _, sandbox) = try loginShowingPage(
            Faults(tokenErrors: [
                "authorization_code": CannedOAuthError(status: 400, error: "invalid_grant", errorDescription: "code <b>expired</b>")
            ]))
        #expect(login.rule == "token-error-object", "\(login)")
        #expect(login.status == 1 && login.stderr.contains("invalid_grant"), "\(login)")
        #expect(page.contains("<h1>Sign-in failed</h1>") && page.contains("invalid_grant") && page.contains("code expired"), "\(page)")
        #expect(!page.contains("Signed in") && !page.contains("<b>"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.stateDirectory + "/tokens.enc"))
    }
}
