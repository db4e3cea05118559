import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `pingcli setup kubectl`, with Debian's kubectl reading what it wrote and using the user against the
/// API server stand-in.
/// A profile k8s signed in to an emulator, a Kubernetes API stand-in that accepts its ID token and the
/// kubeconfig naming it, Debian's kubectl, and the environment that puts that kubectl first on PATH.
struct KubectlSetup {
    let kubectl: String
    let emulator: Emulator
    let sandbox: Sandbox
    let api: KubeAPIStandIn
    var path: String { api.kubeconfig }
    var environment: [String: String] { SetupKubectlTests.environment(sandbox, kubectl: kubectl) }
    /// The kubeconfig as the stand-in wrote it (a user, a cluster and a context, before setup).
    let original: String
    /// `setup kubectl`'s arguments for this kubeconfig and profile k8s.
    var arguments: [String] { ["setup", "kubectl", "--kubeconfig", path, "--profile", "k8s"] }

    /// The trait of every test that needs Debian's kubectl.
    static let needed: ConditionTrait = .enabled(
        if: DebianTools.kubectl != nil, "Debian's kubectl (kubernetes-client) is missing: run make deps")

    init() throws {
        kubectl = try #require(DebianTools.kubectl)
        (emulator, sandbox) = try loggedIn(profile: "k8s")
        api = try KubeAPIStandIn(emulator: emulator, sandbox: sandbox) { $0.hasPrefix("Bearer ey") }
        original = try #require(readText(api.kubeconfig))
    }

    /// Runs `body` with a new setup and what most tests take of it (Debian's kubectl, the emulator, the
    /// sandbox, the kubeconfig's path, the environment), then stops the API stand-in.
    static func with(_ body: (KubectlSetup, String, Emulator, Sandbox, String, [String: String]) throws -> Void) throws {
        let setup = try KubectlSetup()
        defer { setup.api.stop() }
        try body(setup, setup.kubectl, setup.emulator, setup.sandbox, setup.path, setup.environment)
    }
}

@Suite("setup kubectl, with kubectl")
struct SetupKubectlTests {
    /// The sandbox's environment with Debian's kubectl first on PATH (another kubectl may own /usr/bin).
    static func environment(_ sandbox: Sandbox, kubectl: String) -> [String: String] {
        let bin = sandbox.root + "/bin"
        try? FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try? FileManager.default.createSymbolicLink(atPath: bin + "/kubectl", withDestinationPath: kubectl)
        return ["PATH": bin + ":" + (sandbox.environment["PATH"] ?? "")]
    }

    /// The entry the command writes for profile k8s, as `--dry-run` prints it, for Debian's kubectl 1.20.
    static func entry(_ emulator: Emulator) -> String {
        """
        users:
        - name: "pingcli-k8s"
          user:
            exec:
              apiVersion: "client.authentication.k8s.io/v1beta1"
              args:
              - "token"
              - "--format"
              - "exec-credential"
              - "--id-token"
              - "--profile"
              - "k8s"
              command: "\(Locations.pingcli)"
              env:
              - name: "PINGCLI_ISSUER"
                value: "\(emulator.issuer)"
              - name: "PINGCLI_CLIENT_ID"
                value: "pingcli-test"
              interactiveMode: IfAvailable
        """
    }

    @Test(
        "setup-kubectl: shows sub, email and the absent groups, writes the user entry (v1beta1 for kubectl 1.20) that kubectl config view shows and kubectl get uses with the ID token; a second run changes nothing; --dry-run prints it and writes nothing",
        KubectlSetup.needed)
    func setupKubectl() throws {
        try KubectlSetup.with { setup, kubectl, emulator, sandbox, path, environment in
            let dry = sandbox.run(setup.arguments + ["--dry-run"], environment: environment)
            #expect(dry.status == 0, "\(dry)")
            #expect(dry.stdout == "# kubeconfig \(path), user \"pingcli-k8s\" (would be added):\n\(Self.entry(emulator))\n", "\(dry)")
            #expect(readText(path) == setup.original, "--dry-run wrote nothing")

            let first = sandbox.run(setup.arguments, environment: environment)
            #expect(first.status == 0 && first.stdout.isEmpty, "\(first)")
            #expect(first.stderr.contains("  sub:    \(User.demo.sub)\n  email:  \(User.demo.email)\n  groups: (absent"), "\(first)")
            #expect(first.stderr.hasSuffix("kubectl --kubeconfig \(path) config set-context --current --user pingcli-k8s\n"), "\(first)")
            let written = try #require(readText(path))
            let kept = setup.original.hasSuffix("\n") ? setup.original : setup.original + "\n"
            #expect(written == kept + Self.entry(emulator).dropFirst("users:\n".count) + "\n", "the other user, cluster and context kept")

            let view = runProcess(
                kubectl, ["config", "view", "--kubeconfig", path, "-o", "jsonpath={.users[*].name}"], environment: sandbox.environment,
                timeout: 60)
            #expect(view.stdout == "pingcli pingcli-k8s", "\(view)")
            let get = runProcess(
                kubectl, ["--kubeconfig", path, "--user", "pingcli-k8s", "get", "--raw", KubeAPIStandIn.podsPath],
                environment: sandbox.environment,
                timeout: 120)
            #expect(get.status == 0 && get.stdout.contains("\"kind\":\"PodList\""), "\(get)")
            let idToken = sandbox.run(["token", "--id-token", "--raw", "--profile", "k8s"]).stdout.dropLast()
            #expect(
                !idToken.isEmpty && setup.api.server.requests.contains { $0.authorization == "Bearer " + idToken },
                "kubectl sent the ID token")

            let second = sandbox.run(setup.arguments, environment: environment)
            #expect(second.status == 0 && second.stdout.isEmpty, "\(second)")
            #expect(second.stderr.hasSuffix("already runs pingcli for profile \"k8s\": nothing to change.\n"), "\(second)")
            #expect(readText(path) == written, "a second run changes nothing")
        }
    }

    @Test(
        "setup-kubectl-rewritten: after Debian's kubectl rewrote the kubeconfig (set-context, then config view --raw into the file: its own quoting, order and fields), setup kubectl with the same settings says nothing changed (and --dry-run unchanged) and leaves kubectl's text; a changed command in it is still replaced",
        KubectlSetup.needed)
    func rewritten() throws {
        try SetupRemoveTests.withSignedInKubectl { kubectl, _, sandbox, path, environment, arguments in
            let first = sandbox.run(arguments, environment: environment)
            #expect(first.status == 0 && first.stderr.contains("user \"pingcli-k8s\" added"), "\(first)")
            let written = try #require(readText(path))
            let context = runProcess(
                kubectl, ["config", "--kubeconfig", path, "set-context", "k8s", "--user", "pingcli-k8s"], environment: sandbox.environment,
                timeout: 60)
            #expect(context.status == 0, "\(context)")
            let reformatted = try #require(readText(path))
            #expect(reformatted != written && reformatted.contains("- name: pingcli-k8s\n"), "kubectl rewrote it: \(reformatted)")
            let raw = runProcess(kubectl, ["config", "view", "--raw", "--kubeconfig", path], environment: sandbox.environment, timeout: 60)
            #expect(raw.status == 0 && raw.stdout.contains("command: \(Locations.pingcli)\n"), "\(raw)")
            for text in [reformatted, raw.stdout] {
                try text.write(toFile: path, atomically: false, encoding: .utf8)
                let dry = sandbox.run(arguments + ["--dry-run"], environment: environment)
                #expect(dry.status == 0 && dry.stdout.hasPrefix("# kubeconfig \(path), user \"pingcli-k8s\" (unchanged):\n"), "\(dry)")
                let again = sandbox.run(arguments, environment: environment)
                #expect(
                    again.status == 0 && again.stderr.hasSuffix("already runs pingcli for profile \"k8s\": nothing to change.\n"),
                    "\(again)")
                #expect(readText(path) == text, "kubectl's text is kept")
            }
            // The meaning is compared, not only the names: another command in kubectl's text is replaced.
            let other = raw.stdout.replacingOccurrences(of: "command: \(Locations.pingcli)\n", with: "command: /usr/bin/true\n")
            try other.write(toFile: path, atomically: false, encoding: .utf8)
            let replaced = sandbox.run(arguments, environment: environment)
            #expect(replaced.status == 0 && replaced.stderr.contains("user \"pingcli-k8s\" replaced"), "\(replaced)")
            #expect(
                readText(path)?.contains("command: \"\(Locations.pingcli)\"\n") == true
                    && readText(path)?.contains("/usr/bin/true") == false)
        }
    }

    @Test(
        "setup-kubectl-new-file: without --kubeconfig the first KUBECONFIG file is made (0600, its directory too) and a changed profile setting replaces the entry",
        KubectlSetup.needed)
    func newFile() throws {
        let kubectl = try #require(DebianTools.kubectl)
        let (_, sandbox) = try loggedIn(profile: "k8s")
        let path = sandbox.root + "/kube/first"
        var environment = Self.environment(sandbox, kubectl: kubectl)
        environment["KUBECONFIG"] = path + ":" + sandbox.root + "/kube/second"
        let run = sandbox.run(["setup", "kubectl", "--profile", "k8s", "--user", "ada"], environment: environment)
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.contains("kubeconfig \(path), user \"ada\" added"), "\(run)")
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/kube/second"))
        let replaced = sandbox.run(
            ["setup", "kubectl", "--profile", "k8s", "--user", "ada"], environment: environment.merging(["PATH": "/usr/bin:/bin"]) { $1 })
        // Without Debian's kubectl on PATH the entry is v1 (or whatever /usr/bin/kubectl takes): replaced, not added twice.
        if replaced.stderr.contains("nothing to change") {
            #expect(replaced.status == 0, "\(replaced)")
        } else {
            #expect(replaced.status == 0 && replaced.stderr.contains("user \"ada\" replaced"), "\(replaced)")
        }
        let text = try #require(readText(path))
        #expect(text.components(separatedBy: "- name: \"ada\"").count == 2, "one entry: \(text)")
    }

    @Test(
        "setup-kubectl-signs-in: after a logout, setup kubectl on a terminal signs in with the saved settings (PINGCLI_HELPER_LOGIN=never does not stop a person's setup), then shows the claims and writes the entry",
        .enabled(if: KubectlSignInTests.hasScript, "script is missing: run make deps"))
    func signsIn() throws {
        let (emulator, sandbox) = try loggedIn()
        #expect(sandbox.run(["logout"]).status == 0)
        let before = emulator.authorizationRequestParameters.count
        let path = sandbox.root + "/kubeconfig"
        let run = KubectlSignInTests().onTerminal(
            "'\(Locations.pingcli)' setup kubectl --kubeconfig '\(path)'", sandbox, environment: ["PINGCLI_HELPER_LOGIN": "never"])
        #expect(run.status == 0, "\(run)")
        #expect(
            run.stdout.contains("pingcli: profile \"default\" has no usable session: signing in for pingcli setup kubectl\r\n"), "\(run)")
        #expect(run.stdout.contains("  sub:    \(User.demo.sub)"), "\(run)")
        #expect(emulator.authorizationRequestParameters.count == before + 1, "one sign-in")
        #expect(readText(path)?.contains("- name: \"pingcli-default\"\n") == true)
        #expect(sandbox.run(["token", "--raw"]).stdout == emulator.newestTokenLine, "the session is cached")
    }

    /// The examples of docs/usage.md and the man page.
    static let documented = [
        "pingcli setup kubectl --profile k8s # signs in if needed, shows sub/email/groups, writes user pingcli-k8s",
        "kubectl config set-context --current --user pingcli-k8s", "pingcli setup kubectl --profile k8s",
    ]

    @Test(
        "docs-usage-setup-kubectl: usage.md's two lines, as written, in a HOME whose ~/.kube/config has a cluster and context: kubectl get then sends the ID token; the man page's line (the same command) succeeds again",
        KubectlSetup.needed)
    func documentedLines() throws {
        try KubectlSetup.with { setup, _, emulator, sandbox, path, environment in
            let home = try #require(sandbox.environment["HOME"])
            try FileManager.default.createDirectory(atPath: home + "/.kube", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: path, toPath: home + "/.kube/config")
            var shell = DocsShell(sandbox, emulator: emulator)
            shell.environment = environment
            let run = try shell.succeeds(Self.documented[0], Self.documented[1], then: "kubectl get --raw \(KubeAPIStandIn.podsPath)")
            #expect(run.stdout.contains("\"kind\":\"PodList\""), "\(run)")
            let idToken = sandbox.run(["token", "--id-token", "--raw", "--profile", "k8s"]).stdout.dropLast()
            #expect(
                !idToken.isEmpty && setup.api.server.requests.contains { $0.authorization == "Bearer " + idToken },
                "kubectl sent the ID token")
            let manLine = try shell.succeeds(Self.documented[2])
            #expect(manLine.stderr.contains("user \"pingcli-k8s\""), "\(manLine)")
        }
    }

    @Test(
        "setup-kubectl-errors: a kubeconfig that is a directory (2), under a file (1), a JSON kubeconfig (1), no login without a terminal (4), --local (2), an operand (2): one line each, nothing written"
    )
    func errors() throws {
        let sandbox = Sandbox()
        let notLoggedIn = sandbox.run(["setup", "kubectl", "--kubeconfig", sandbox.root + "/config"])
        #expect(notLoggedIn.status == 4, "\(notLoggedIn)")
        #expect(notLoggedIn.stderr.hasPrefix("pingcli: not logged in for profile \"default\""), "\(notLoggedIn)")
        #expect(["helper-no-settings", "helper-no-terminal"].contains(notLoggedIn.rule), "\(notLoggedIn)")
        #expect(
            notLoggedIn.stderr.hasSuffix(
                "(pingcli setup kubectl did not sign in: the profile has no saved settings and PINGCLI_ISSUER is not set)\n")
                || notLoggedIn.stderr.contains("did not sign in: there is no terminal"), "\(notLoggedIn)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/config"))

        let (_, loggedInSandbox) = try loggedIn()
        let directory = loggedInSandbox.run(["setup", "kubectl", "--kubeconfig", loggedInSandbox.root])
        #expect(
            directory.status == 2
                && directory.stderr
                    == "pingcli: the kubeconfig \(loggedInSandbox.root) is a directory, not a file: name a file with --kubeconfig\n",
            "\(directory)")
        let underFile = loggedInSandbox.run(["setup", "kubectl", "--kubeconfig", "/etc/hostname/config"])
        #expect(
            underFile.status == 1
                && underFile.stderr
                    == "pingcli: cannot use the kubeconfig /etc/hostname/config: Not a directory: name another file with --kubeconfig\n",
            "\(underFile)")
        let json = loggedInSandbox.root + "/kubeconfig.json"
        try #"{"apiVersion": "v1", "kind": "Config", "users": []}"#.write(toFile: json, atomically: true, encoding: .utf8)
        let refused = loggedInSandbox.run(["setup", "kubectl", "--kubeconfig", json])
        #expect(
            refused.status == 1
                && refused.stderr
                    == "pingcli: cannot edit the kubeconfig \(json): it is not a YAML mapping (a JSON kubeconfig?): add the entry pingcli setup kubectl --dry-run prints by hand\n",
            "\(refused)")
        #expect(readText(json) == #"{"apiVersion": "v1", "kind": "Config", "users": []}"#)
        let local = loggedInSandbox.run(["setup", "kubectl", "--local"])
        #expect(local.rule == "command-operand", "\(local)")
        #expect(
            local.status == 2 && local.stderr == "pingcli: --local is not for pingcli setup kubectl: see pingcli setup --help\n", "\(local)"
        )
        let operand = loggedInSandbox.run(["setup", "kubectl", "extra"])
        #expect(operand.rule == "command-operand", "\(operand)")
        #expect(
            operand.status == 2 && operand.stderr == "pingcli: pingcli setup kubectl takes no operand: see pingcli setup --help\n",
            "\(operand)")
        let gitUser = loggedInSandbox.run(["setup", "git", "git.example.com", "--user", "x"])
        #expect(gitUser.rule == "command-operand", "\(gitUser)")
        #expect(
            gitUser.status == 2 && gitUser.stderr == "pingcli: --user is not for pingcli setup git: see pingcli setup --help\n",
            "\(gitUser)")
    }
}
