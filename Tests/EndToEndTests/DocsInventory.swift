import Foundation
import Testing

/// How one documentation example is run.
enum DocRunner: Equatable {
    /// By the test whose name starts with this (`"docs-usage-token"` for `@Test("docs-usage-token: …")`).
    case test(String)
    /// Cannot run here as written (it changes the machine, or is the suite itself); `test` checks what
    /// can be checked, and `reason` says why the rest is not.
    case checked(test: String, reason: String)

    var testName: String {
        switch self {
        case .test(let name), .checked(let name, _): name
        }
    }
}

/// Every example of docs/usage.md, docs/configuration.md, docs/exit-codes.md, the README and the man page,
/// keyed by its text (`DocExamples`), with what runs it. An example without an entry, or an entry whose
/// example is gone, fails `docs-inventory`; a changed example is a new key, so its runner is revisited.
enum DocsInventory {
    static let table: [String: DocRunner] = {
        var table: [String: DocRunner] = [:]
        for key in [DocsSignInExamples.browser, DocsSignInExamples.readmeBrowser, DocsSignInExamples.manBrowser] {
            table[key] = .test("docs-usage-login-browser")
        }
        table[DocsSignInExamples.device] = .test("docs-usage-login-device")
        table[DocsSignInExamples.machine] = .test("docs-usage-login-machine")
        for key in [
            "install -d -m 755 ~/.config/sso",
            #"install -m 600 /dev/null ~/.config/sso/client-secret && printf '%s\n' "$SECRET" > ~/.config/sso/client-secret"#,
            #"pingcli login --client-secret-file ~/.config/sso/client-secret \ --issuer https://sso.example.com --client-id pingcli-confidential"#,
        ] {
            table[key] = .test("docs-secret-file")
        }
        for key in [DocsSignInExamples.region, DocsSignInExamples.readmeRegion, DocsSignInExamples.domain] {
            table[key] = .test("docs-usage-login-pingone")
        }
        table[DocsSignInExamples.overrides] = .test("docs-usage-login-endpoints")
        table[DocsSignInExamples.issuerSwitch] = .test("docs-usage-issuer-switch")
        table[DocsSignInExamples.certificateLogin] = .test("docs-usage-mtls")
        table[DocsSignInExamples.certificateToken] = .test("docs-usage-mtls")
        table[DocsSignInExamples.pinPipeline] = .test("docs-usage-pin")
        table[DocsSignInExamples.pinLogin] = .test("docs-usage-pin")

        let tokens = DocsTokenExamples.self
        for key in [tokens.raw, tokens.captured, tokens.plain, tokens.minTTL, tokens.json, tokens.idToken] {
            table[key] = .test("docs-usage-token")
        }
        table[tokens.jsonShape] = .test("docs-usage-token-json")
        for key in [tokens.scope, tokens.resource, tokens.resourceJSON, tokens.audience] { table[key] = .test("docs-usage-token-target") }
        table[tokens.invalidScope] = .test("docs-usage-invalid-scope")
        table[tokens.userinfo] = .test("docs-usage-userinfo")
        table[tokens.userinfoRaw] = .test("docs-usage-userinfo")
        table[#"yaml block "users:" #7549705e3a6adac3"#] = .test("kubectl-docs-kubeconfig")
        table[DocsKubectlTranscript.transcript] = .test("docs-usage-kubectl-transcript")
        table[DocsJourneyTranscript.transcript] = .test("docs-usage-journey-transcript")
        table[DocsSocialTranscript.transcript] = .test("docs-usage-journey-idp")
        for key in SetupKubectlTests.documented { table[key] = .test("docs-usage-setup-kubectl") }
        table[AWSCLITests.docsSetup] = .test("docs-usage-aws")
        table[AWSCLITests.docsEnv] = .test("docs-usage-aws")
        table[AWSCLITests.docsCallerIdentity] = .checked(
            test: "docs-usage-aws", reason: "Debian's awscli (2.9) predates AWS_ENDPOINT_URL_STS: the test adds --endpoint-url")

        let api = DocsAPIExamples.self
        for key in [api.absolute, api.apiBase, api.jq, api.patch, api.fromFile, api.fromStdin, api.fail, api.resource] {
            table[key] = .test("docs-usage-api")
        }
        for key in [api.dpopLogin, api.dpopEdDSA, api.dpopJSON, api.dpopAPI, api.dpopCurl, api.noDPoP] {
            table[key] = .test("docs-usage-dpop")
        }

        let sessions = DocsSessionExamples.self
        for key in [
            sessions.status, sessions.statusAll, sessions.profiles, sessions.profilesJSON, sessions.use, sessions.remove,
            sessions.globalProfile,
        ] {
            table[key] = .test("docs-usage-profiles")
        }
        for key in [
            sessions.logout, sessions.logoutRevoke, sessions.endSession, sessions.logoutAll, sessions.logoutJSON, sessions.endSessionPort,
            sessions.logoutPort,
        ] {
            table[key] = .test("docs-usage-logout")
        }
        let otp = DocsOTPExamples.self
        for key in [otp.add, otp.addFile, otp.code, otp.codeJSON, otp.list, otp.remove] { table[key] = .test("docs-usage-otp") }
        for key in [DocsJourneyOTPExamples.enroll, DocsJourneyOTPExamples.answer] { table[key] = .test("docs-usage-journey-otp") }
        for key in [DocsDeviceExamples.list, DocsDeviceExamples.json, DocsDeviceExamples.remove] {
            table[key] = .test("docs-usage-devices")
        }
        // The passkey transcript and devices lines: each pingcli line asserted by the passkey end-to-end tests.
        table[
            #"text block "$ pingcli login --issuer https://tenant.example.com/am/oauth2/realms/root/realms/alpha --client-id pingcli --journey "Passkey Registration"" #c6b12d5fc104ed13"#
        ] =
            .checked(
                test: "passkey-e2e-metadata",
                reason: "registration's lines asserted against the emulator; the usernameless sign-in by passkey-e2e-usernameless")
        table["pingcli devices # key id, KIND binding or passkey, user, AM (and RP id), …"] = .test("passkey-e2e-devices")
        table["pingcli devices remove <key-id> # a passkey: deleted here, and AM's WebAuthn device record with a saved AM session"] =
            .test("passkey-e2e-devices")
        table[sessions.gitConfigure] = .test("docs-usage-git")
        table[sessions.gitConfig] = .test("docs-usage-git")

        let readme = DocsReadmeExamples.self
        for (key, _) in readme.completion { table[key] = .test("docs-usage-completion") }
        table[readme.manual] = .test("docs-usage-manual")
        table[readme.keyStoreLines] = .test("docs-config-key-store-line")
        table[readme.profileJSON] = .test("docs-config-profile-json")
        table[readme.readmeCurl] = .test("docs-readme-curl")
        table[readme.manCurl] = .test("docs-readme-curl")
        table[readme.manGitConfigure] = .test("docs-man-git")
        table[readme.manGitConfig] = .test("docs-man-git")
        table[readme.version] = .test("docs-readme-install")
        table[readme.debInstall] = .checked(
            test: "make-deb", reason: "installing a package changes this machine: make-deb builds the .deb and runs it from a scratch root")
        for (key, _) in readme.fourWays { table[key] = .test("docs-readme-four-ways") }
        table[readme.synopsis] = .test("docs-readme-synopsis")
        table["make release # .build/release/pingcli, the Swift runtime linked in statically"] = .checked(
            test: "make-release-no-kubectl",
            reason: "a release build takes minutes; the test checks what make release would run, and make demo builds it")
        table[
            "sudo make install PREFIX=/usr/local # bin/pingcli and libexec/pingcli/pingcli, man page pingcli(1), completions; no apt-get"] =
            .checked(
                test: "make-install",
                reason: "installing under /usr/local changes this machine: make-install runs make install with PREFIX in a sandbox")
        table["make deb # .build/deb/pingcli_VERSION_ARCH.deb, stripped; its symbols in pingcli-dbgsym_VERSION_ARCH.deb"] = .checked(
            test: "make-deb", reason: "make-deb runs make deb with the debug build as PINGCLI_BIN (a release build takes minutes)")
        table["make demo # the whole login lifecycle against pingcli's own PingOne emulator, then a PingAM journey, in a throw-away HOME"] =
            .checked(
                test: "readme-transcript", reason: "make demo is make release (minutes) and then Tests/Support/demo.sh, which the test runs"
            )
        table["make test # unit, emulator and end-to-end tests"] = .checked(
            test: "docs-inventory", reason: "the command that runs this suite (.ci/run runs it in CI)")
        table[#"text block "[1] Start the PingOne emulator on a loopback port" #15e36d7d3ebd4a1"#] = .test("readme-transcript")
        return table
    }()
}

@Suite("docs inventory")
struct DocsInventoryTests {
    @Test(
        "docs-inventory: every example of usage.md, configuration.md, exit-codes.md, the README and the man page has a runner, and every runner's example is still there"
    )
    func inventory() throws {
        let examples = try DocExamples.all()
        #expect(examples.count > 90, "the extraction found the examples: \(examples.count)")
        // exit-codes.md has no example block today (its table quotes messages that the tests of each rule
        // assert); when it gets one, this fails until the runner is written.
        #expect(
            Set(examples.map(\.document)) == Set(DocExamples.documents + [DocExamples.manPage]).subtracting(["docs/exit-codes.md"]),
            "\(Set(examples.map(\.document)).sorted())")
        let keys = Set(examples.map(\.key))
        for example in examples where DocsInventory.table[example.key] == nil {
            Issue.record("no runner for \(example.document):\(example.line): add an entry keyed \"\(example.key)\" to DocsInventory.table")
        }
        for key in DocsInventory.table.keys.sorted() where !keys.contains(key) {
            Issue.record("DocsInventory.table has an entry for an example no longer in the docs: \"\(key)\"")
        }
    }

    @Test("docs-inventory-runners: every test the inventory names exists")
    func runnersExist() throws {
        let tests = try FileManager.default.subpathsOfDirectory(atPath: DebianTools.repositoryRoot + "/Tests")
            .filter { $0.hasSuffix(".swift") }.compactMap { readText(DebianTools.repositoryRoot + "/Tests/" + $0) }.joined()
        for (key, runner) in DocsInventory.table {
            #expect(tests.contains("\"\(runner.testName): "), "\(key): no test named \(runner.testName)")
        }
    }

    @Test(
        "docs-inventory-extraction: command lines with continuations, comments skipped, transcripts and other blocks whole, indented blocks"
    )
    func extraction() {
        let markdown = """
            Text.

            ```sh
            # a comment
            pingcli login --issuer URL \\
              --client-id ID    # trailing
            a=$(x |
              y)

            pingcli token
            ```

              ```sh
              pingcli status
              ```

            ```
            $ pingcli logout
            Removed.
            ```

            ```json
            {"a": 1}
            ```
            """
        let examples = DocExamples.extract(markdown: markdown, document: "doc.md")
        #expect(
            examples.map(\.key).prefix(4) == [
                "pingcli login --issuer URL \\ --client-id ID # trailing", "a=$(x | y)", "pingcli token", "pingcli status",
            ])
        #expect(examples.map(\.line).prefix(4) == [5, 7, 10, 14])
        #expect(examples.count == 6)
        #expect(examples[4].key.hasPrefix("plain block \"$ pingcli logout\" #") && examples[4].text == "$ pingcli logout\nRemoved.")
        #expect(examples[5].key.hasPrefix("json block \"{\"a\": 1}\" #"))
        let changed = DocExamples.extract(markdown: markdown.replacingOccurrences(of: "Removed.", with: "Gone."), document: "doc.md")
        #expect(changed[4].key != examples[4].key, "a changed block is a new key")
        let page = ".SH EXAMPLES\n.nf\npingcli token \\-\\-raw\n\\&.x\n.fi\n.SH SEE ALSO\nx"
        #expect(DocExamples.extract(manPage: page).map(\.key) == ["pingcli token --raw", ".x"])
    }
}
