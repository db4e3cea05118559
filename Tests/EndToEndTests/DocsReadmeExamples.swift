import Foundation
import PingEmulator
import Testing

/// The README's examples, the man page's EXAMPLES, configuration.md's blocks and usage.md's completion
/// and manual lines, run as written (or, where they cannot run here, checked as far as they can be).
@Suite("docs examples: README, man page, configuration, completion")
struct DocsReadmeExamples {
    static let readmeCurl = #"curl -H "Authorization: Bearer $(pingcli token --raw)" https://api.example.com/me"#
    static let manCurl = #"curl -H "Authorization: Bearer $(pingcli token)" https://api.example.com/me"#
    static let manGitConfigure = "pingcli git-credential configure git.example.com"
    static let manGitConfig = "git config --global credential.https://git.example.com.helper '!pingcli git-credential'"
    static let version = "pingcli --version"
    static let debInstall = "sudo apt install ./pingcli_0.1.0_amd64.deb # a package made with `make deb`"
    static let fourWays: [(key: String, kind: String)] = [
        ("pingcli login --issuer URL --client-id ID # a person, the browser here", "browser"),
        ("pingcli login --device --issuer URL --client-id ID # a person, a code on another device (RFC 8628)", "device"),
        ("PINGCLI_CLIENT_SECRET=… pingcli login --client-credentials --issuer URL --client-id ID # a machine", "secret"),
        ("pingcli login --client-secret-file PATH --issuer URL --client-id ID # a confidential client", "secret"),
        (
            "pingcli login --client-credentials --client-key-file key.pem --issuer URL --client-id ID # private_key_jwt (RFC 7523)",
            "key"
        ),
    ]
    static let synopsis =
        #"plain block "pingcli login --issuer URL --client-id ID [--scope "openid profile email"] [--port 0]" #7f53824358db7010"#
    static let keyStoreLines =
        #"plain block "The cache key is an item in the Secret Service (a Secret Service answers on the session bus), with a copy in the kernel session keyring; no key file is written" #e02d2865953c6fdc"#
    static let profileJSON = #"json block "{" #9822401d681b2b46"#
    static let completion = [
        ("source <(pingcli completion bash) # or save it as", "bash"),
        ("mkdir -p ~/.local/share/bash-completion/completions", "bash"),
        ("pingcli completion bash > ~/.local/share/bash-completion/completions/pingcli", "bash"),
        (#"pingcli completion zsh > "${fpath[1]}/_pingcli" # a directory in $fpath"#, "zsh"),
        ("mkdir -p ~/.config/fish/completions", "bash"),
        ("pingcli completion fish > ~/.config/fish/completions/pingcli.fish", "fish"),
    ]
    static let manual = "pingcli --help-man > pingcli.1 && man -l pingcli.1 # the manual page, pingcli(1)"

    @Test("docs-readme-curl: the README's and the man page's curl lines send the fresh token to the API (the emulator's resource)")
    func curlExamples() throws {
        let (emulator, sandbox) = try loggedIn()
        let shell = DocsShell(sandbox, emulator: emulator)
        for key in [Self.readmeCurl, Self.manCurl] {
            let run = try shell.succeeds(key)
            #expect(run.stdout.contains("\"sub\":\"\(User.demo.sub)\"") && run.stdout.contains("\"token_type\":\"Bearer\""), "\(run)")
            #expect(emulator.requests(to: .resource).last?.headers["authorization"] == "Bearer " + emulator.newestTokenLine.dropLast())
        }
    }

    @Test("docs-man-git: the man page's git lines make real git get the default profile's token for git.example.com")
    func manGitExample() throws {
        let (emulator, sandbox) = try loggedIn()
        let shell = DocsShell(sandbox, emulator: emulator)
        try shell.succeeds(Self.manGitConfigure)
        let fill = try shell.succeeds(
            Self.manGitConfig, then: "printf 'protocol=https\\nhost=git.example.com\\n\\n' | GIT_TERMINAL_PROMPT=0 git credential fill")
        #expect(fill.stdout.contains("password=\(emulator.newestTokenLine)"), "\(fill)")
    }

    @Test("docs-readme-install: pingcli --version prints the version the README's package name carries (the .deb itself: make-deb)")
    func versionExample() throws {
        let run = try DocsShell(Sandbox()).succeeds(Self.version)
        let version = try #require(Self.debInstall.firstMatch(of: /pingcli_([0-9.]+)_amd64\.deb/)).1
        #expect(run.stdout.contains(version), "\(run)")
    }

    @Test("docs-readme-four-ways: the README's four ways in (browser, device, secret in the variable or a file, private_key_jwt) sign in")
    func fourWays() throws {
        let key = ClientKeyPair.rsa()
        for (example, kind) in Self.fourWays {
            let emulator = try startEmulator {
                $0.deviceInterval = 1
                switch kind {
                case "secret":
                    $0.clients = [
                        RegisteredClient(clientID: "pingcli-test", clientSecret: confidentialSecret, authMethod: "client_secret_basic")
                    ]
                case "key":
                    var machine = RegisteredClient(clientID: "pingcli-test", authMethod: "private_key_jwt")
                    machine.publicKeyDER = key.publicKeyDER
                    $0.clients = [machine]
                default: break
                }
            }
            defer { emulator.stop() }
            let sandbox = Sandbox()
            // In a directory closed to others, as usage.md's example makes it (a home may be 0755).
            let secretFile = sandbox.root + "/home/.local/share/pingcli-secrets/sso"
            try FileManager.default.createDirectory(
                atPath: sandbox.root + "/home/.local/share/pingcli-secrets", withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            _ = FileManager.default.createFile(
                atPath: secretFile, contents: Data(confidentialSecret.utf8), attributes: [.posixPermissions: 0o600])
            // key.pem is named relative to the current directory (the home), which must be closed to others.
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: sandbox.root + "/home")
            _ = FileManager.default.createFile(
                atPath: sandbox.root + "/home/key.pem", contents: Data(key.privateKeyPEM.utf8), attributes: [.posixPermissions: 0o600])
            var shell = DocsShell(sandbox, emulator: emulator)
            shell.substitutions = [
                ("--issuer URL", "--issuer " + emulator.issuer), ("--client-id ID", "--client-id pingcli-test"),
                ("=…", "='\(confidentialSecret)'"),
                ("--client-secret-file PATH", "--client-secret-file " + secretFile),
            ]
            let run = try shell.succeeds(example)
            #expect(run.stderr.contains("Logged in to \(emulator.issuer)"), "\(example)\n\(run)")
            #expect(sandbox.run(["token", "--raw"]).stdout == emulator.newestTokenLine, "\(example)")
        }
    }

    @Test("docs-readme-synopsis: every command of the README's usage block exists and takes every option the block shows")
    func synopsis() throws {
        let block = try DocExamples.text(Self.synopsis)
        var command = ""
        var checked = 0
        for line in block.split(separator: "\n") {
            if line.hasPrefix("pingcli ") {
                command = String(line.dropFirst(8).prefix { $0 != " " })
            }
            guard !command.hasPrefix("-") else { continue }  // the global line: --version, --help-man
            let help = Sandbox().run([command, "--help"])
            #expect(help.status == 0, "pingcli \(command) --help: \(help)")
            for match in line.matches(of: /--[a-z][a-z-]*/) where !["--help"].contains(String(match.output)) {
                #expect(help.stdout.contains(String(match.output)), "pingcli \(command) --help does not show \(match.output)")
                checked += 1
            }
        }
        #expect(checked > 60, "the block's options were read: \(checked)")
    }

    @Test("docs-config-key-store-line: the file store's login line in configuration.md is what login prints without a session bus")
    func keyStoreLine() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        let login = sandbox.login(emulator)
        #expect(login.status == 0, "\(login)")
        let documented = try #require(DocExamples.text(Self.keyStoreLines).split(separator: "\n").last)
            .replacingOccurrences(of: "/home/me/.local/share", with: sandbox.environment["XDG_DATA_HOME"]!)
        #expect(login.stderr.contains(documented + "\n"), "\(login)")
    }

    @Test(
        "docs-config-key-store-line: the Secret Service's login line in configuration.md is what login prints with a real gnome-keyring",
        .enabled(if: SecretServiceSession.available, "gnome-keyring, dbus and libsecret-tools are missing: run make deps"))
    func keyringLine() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        let session = try SecretServiceSession(sandbox: sandbox)
        let login = sandbox.login(emulator, environment: session.environment)
        #expect(login.status == 0, "\(login)")
        let documented = try #require(DocExamples.text(Self.keyStoreLines).split(separator: "\n").first)
        #expect(login.stderr.contains(documented + "\n"), "\(login)")
    }

    @Test("docs-config-profile-json: configuration.md's profile.json has the members and values a login with --ca-file writes")
    func profileJSON() throws {
        let (emulator, sandbox) = try emulatorAndSandbox { $0.clients = [RegisteredClient(clientID: "pingcli")] }
        let caFile = "/etc/ssl/certs/ca-certificates.crt"
        let login = sandbox.run(["login", "--issuer", emulator.issuer, "--client-id", "pingcli", "--ca-file", caFile, "--timeout", "30"])
        #expect(login.status == 0, "\(login)")
        let documented = try DocExamples.text(Self.profileJSON).replacingOccurrences(
            of: "https://auth.pingone.com/<env-id>/as", with: emulator.issuer
        ).replacingOccurrences(of: "/etc/ssl/private-ca.pem", with: caFile)
        let expected = try #require(try JSONSerialization.jsonObject(with: Data(documented.utf8)) as? [String: Any])
        let actual = try #require(
            try JSONSerialization.jsonObject(with: Data((readText(sandbox.profileDirectory + "/profile.json") ?? "").utf8))
                as? [String: Any])
        for (name, value) in expected where name != "metadata" {
            #expect("\(value)" == "\(actual[name] ?? "missing")", "\(name)")
        }
        let metadata = try #require(actual["metadata"] as? [String: Any])
        for (name, value) in try #require(expected["metadata"] as? [String: String]) {
            #expect(metadata[name] as? String == value, "metadata.\(name)")
        }
    }

    @Test("docs-usage-completion: the completion lines, each in its shell, load or save scripts that complete pingcli")
    func completionExamples() throws {
        let sandbox = Sandbox()
        var shell = DocsShell(sandbox)
        let home = sandbox.root + "/home"
        try FileManager.default.createDirectory(atPath: home + "/zfunc", withIntermediateDirectories: true)
        shell.environment["FPATH"] = home + "/zfunc"  // the user's own first $fpath directory
        for (key, language) in Self.completion { try shell.succeeds(key, shell: language) }
        let sourced = try shell.succeeds(Self.completion[0].0, then: "complete -p pingcli")
        #expect(sourced.stdout.contains("pingcli"), "\(sourced)")
        let saved = runProcess(
            "/bin/bash", ["-c", "source ~/.local/share/bash-completion/completions/pingcli && complete -p pingcli"],
            environment: sandbox.environment, timeout: 60)
        #expect(saved.status == 0 && saved.stdout.contains("pingcli"), "\(saved)")
        #expect(readText(home + "/zfunc/_pingcli")?.hasPrefix("#compdef pingcli") == true)
        let fish = runProcess(
            "/usr/bin/fish", ["--no-config", "-c", "source ~/.config/fish/completions/pingcli.fish; complete -C 'pingcli log'"],
            environment: sandbox.environment, timeout: 60)
        #expect(fish.stdout.contains("login") && fish.stdout.contains("logout"), "\(fish)")
    }

    @Test("docs-usage-manual: --help-man > pingcli.1 && man -l pingcli.1 renders the manual")
    func manualExample() throws {
        var shell = DocsShell(Sandbox())
        shell.environment["MANPAGER"] = "cat"
        shell.environment["MANWIDTH"] = "100"
        let run = try shell.succeeds(Self.manual)
        #expect(run.stdout.contains("NAME") && run.stdout.contains("EXIT STATUS") && run.stdout.contains("pingcli login"), "\(run)")
    }
}
