import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `setup` run twice changes no byte, and `setup --remove` takes out exactly what setup wrote, against
/// the real git and kubectl reading the same files.
@Suite("setup is idempotent and can be undone")
struct SetupRemoveTests {
    /// A file's bytes and its modification time: what "no byte changed" means (not even rewritten alike).
    func snapshot(_ path: String) -> (Data?, Int) {
        var info = stat()
        let time = stat(path, &info) == 0 ? info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec : -1
        return (FileManager.default.contents(atPath: path), time)
    }

    @Test(
        "setup-git-twice-remove: a second setup git writes nothing (git config, token cache) and says nothing to change; --remove --dry-run prints the unset commands; --remove leaves the person's ~/.gitconfig byte for byte, and later keeps a helper the person added",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/git"), "git is missing"))
    func git() throws {
        let (_, sandbox) = try loggedIn()
        let gitconfig = sandbox.root + "/home/.gitconfig"
        let person = "[user]\n\tname = Ada\n[credential \"https://other.example.com\"]\n\thelper = store\n"
        try person.write(toFile: gitconfig, atomically: false, encoding: .utf8)
        let setup = ["setup", "git", "git.example.com"]
        #expect(sandbox.run(setup).status == 0)
        let (written, writtenTime) = snapshot(gitconfig)
        let cache = snapshot(sandbox.profileDirectory + "/tokens.enc")
        usleep(20_000)
        let again = sandbox.run(setup)
        #expect(
            again.status == 0 && again.stderr.hasSuffix("for https://git.example.com (global git config): nothing to change.\n"), "\(again)"
        )
        #expect(snapshot(gitconfig) == (written, writtenTime), "the second run rewrote ~/.gitconfig")
        #expect(snapshot(sandbox.profileDirectory + "/tokens.enc") == cache, "the second run rewrote the token cache")

        let dry = sandbox.run(setup + ["--remove", "--dry-run"])
        #expect(dry.status == 0 && dry.stdout.split(separator: "\n").count == 2, "\(dry)")
        #expect(
            dry.stdout.hasPrefix("git config --global --fixed-value --unset-all credential.https://git.example.com.helper ''\n"), "\(dry)")
        #expect(snapshot(gitconfig).0 == written, "--dry-run wrote nothing")
        // The printed commands do what --remove does.
        let printed = runProcess("/bin/sh", ["-c", dry.stdout], environment: sandbox.environment, timeout: 60)
        #expect(printed.status == 0 && readText(gitconfig) == person, "\(printed)")
        #expect(sandbox.run(setup).status == 0)

        let removed = sandbox.run(setup + ["--remove"])
        #expect(removed.status == 0 && removed.stdout.isEmpty && removed.stderr.contains("git no longer asks pingcli"), "\(removed)")
        #expect(readText(gitconfig) == person, "only what setup wrote was taken out")
        let nothing = sandbox.run(setup + ["--remove"])
        #expect(nothing.status == 0 && nothing.stderr.hasSuffix("nothing to change.\n") && readText(gitconfig) == person, "\(nothing)")

        #expect(sandbox.run(setup).status == 0)
        let add = runProcess(
            "/usr/bin/git", ["config", "--global", "--add", "credential.https://git.example.com.helper", "cache"],
            environment: sandbox.environment, timeout: 60)
        #expect(add.status == 0, "\(add)")
        let keeps = sandbox.run(setup + ["--remove"])
        #expect(keeps.status == 0 && keeps.stderr.contains("1 other helper for it kept"), "\(keeps)")
        let left = runProcess(
            "/usr/bin/git", ["config", "--global", "--get-all", "credential.https://git.example.com.helper"],
            environment: sandbox.environment,
            timeout: 60)
        #expect(left.stdout == "cache\n", "\(left)")
    }

    @Test(
        "setup-kubectl-remove: --remove --dry-run changes nothing; --remove leaves the kubeconfig as it was before setup (its user, cluster and context), kubectl reads no pingcli user; a second --remove has nothing to change",
        KubectlSetup.needed)
    func kubectl() throws {
        try KubectlSetup.with { setup, kubectl, _, sandbox, path, environment in
            let kept = setup.original.hasSuffix("\n") ? setup.original : setup.original + "\n"
            let arguments = setup.arguments
            #expect(sandbox.run(arguments, environment: environment).status == 0)
            let written = try #require(readText(path))
            #expect(written != kept)

            let dry = sandbox.run(arguments + ["--remove", "--dry-run"], environment: environment)
            #expect(dry.status == 0 && dry.stdout.contains("(would be removed)") && readText(path) == written, "\(dry)")
            let removed = sandbox.run(arguments + ["--remove"], environment: environment)
            #expect(removed.status == 0 && removed.stdout.isEmpty && removed.stderr.contains("user \"pingcli-k8s\" removed"), "\(removed)")
            #expect(readText(path) == kept, "the kubeconfig is as it was before setup")
            let view = runProcess(
                kubectl, ["config", "view", "--kubeconfig", path, "-o", "jsonpath={.users[*].name}"], environment: sandbox.environment,
                timeout: 60)
            #expect(view.stdout == "pingcli", "\(view)")
            let again = sandbox.run(arguments + ["--remove"], environment: environment)
            #expect(again.status == 0 && again.stderr.hasSuffix("no such user: nothing to change.\n") && readText(path) == kept, "\(again)")
        }
    }

    /// Runs `body` with Debian's kubectl first on PATH, profile k8s signed in, a kubeconfig path not yet
    /// written, and `setup kubectl`'s arguments for them; then stops the emulator.
    static func withSignedInKubectl(
        _ body: (_ kubectl: String, Emulator, Sandbox, _ path: String, _ environment: [String: String], _ arguments: [String]) throws ->
            Void
    ) throws {
        let kubectl = try #require(DebianTools.kubectl)
        let (emulator, sandbox) = try loggedIn(profile: "k8s")
        defer { emulator.stop() }
        let path = sandbox.root + "/kubeconfig"
        let environment = SetupKubectlTests.environment(sandbox, kubectl: kubectl)
        try body(kubectl, emulator, sandbox, path, environment, ["setup", "kubectl", "--kubeconfig", path, "--profile", "k8s"])
    }

    @Test(
        "setup-kubectl-remove-restores-key: on a kubeconfig without users (or with users: []) kubectl reads the entry setup added, and --remove gives back the file byte for byte, the key as it was",
        KubectlSetup.needed)
    func restoresUsersKey() throws {
        try Self.withSignedInKubectl { kubectl, _, sandbox, path, environment, arguments in
            let head = "apiVersion: v1\nclusters: []\ncontexts: []\ncurrent-context: \"\"\nkind: Config\npreferences: {}\n"
            for original in [head, head + "users: [] # nobody yet\n"] {
                try original.write(toFile: path, atomically: true, encoding: .utf8)
                #expect(chmod(path, 0o600) == 0)
                #expect(sandbox.run(arguments, environment: environment).status == 0)
                let view = runProcess(
                    kubectl, ["config", "view", "--kubeconfig", path, "-o", "jsonpath={.users[*].name}"], environment: sandbox.environment,
                    timeout: 60)
                #expect(view.status == 0 && view.stdout == "pingcli-k8s", "kubectl reads the key setup wrote: \(view)")
                let removed = sandbox.run(arguments + ["--remove"], environment: environment)
                #expect(removed.status == 0, "\(removed)")
                #expect(readText(path) == original, "byte for byte: \(readText(path) ?? "")")
            }
        }
    }

    @Test(
        "setup-kubectl-remove-foreign: a user of that name a person wrote (another credential) is not removed: exit 1, the file unchanged; after kubectl rewrote setup's entry, --remove still takes it out",
        KubectlSetup.needed)
    func foreign() throws {
        try Self.withSignedInKubectl { kubectl, _, sandbox, path, environment, arguments in
            // A person's entry of that name, as `kubectl config set-credentials pingcli-k8s --token=person` writes
            // it (written here: Debian's kubectl 1.20, built with a newer Go, crashes creating a file that way).
            let person =
                "apiVersion: v1\nclusters: []\ncontexts: []\ncurrent-context: \"\"\nkind: Config\npreferences: {}\nusers:\n- name: pingcli-k8s\n  user:\n    token: person\n"
            try person.write(toFile: path, atomically: true, encoding: .utf8)
            #expect(chmod(path, 0o600) == 0)
            let refused = sandbox.run(arguments + ["--remove"], environment: environment)
            #expect(refused.status == 1 && refused.stderr.contains("kubectl config delete-user pingcli-k8s"), "\(refused)")
            #expect(readText(path) == person)

            try FileManager.default.removeItem(atPath: path)
            #expect(sandbox.run(arguments, environment: environment).status == 0)
            let context = runProcess(
                kubectl, ["config", "--kubeconfig", path, "set-context", "k8s", "--user", "pingcli-k8s"], environment: sandbox.environment,
                timeout: 60)
            #expect(context.status == 0 && readText(path)?.contains("- name: pingcli-k8s\n") == true, "kubectl rewrote it")
            let removed = sandbox.run(arguments + ["--remove"], environment: environment)
            #expect(removed.status == 0, "\(removed)")
            let view = runProcess(
                kubectl, ["config", "view", "--kubeconfig", path, "-o", "jsonpath={.users[*].name}|{.contexts[*].name}"],
                environment: sandbox.environment, timeout: 60)
            #expect(view.stdout == "|k8s", "the user gone, the person's context kept: \(view)")
        }
    }
}
