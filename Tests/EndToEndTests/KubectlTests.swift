import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The tools from Debian that the integration tests drive, found where `make deps` puts them.
enum DebianTools {
    /// The repository's root (Tests/Support/../..).
    static let repositoryRoot = URL(fileURLWithPath: Locations.support).deletingLastPathComponent().deletingLastPathComponent().path

    /// Debian's kubectl (package kubernetes-client, 1.20): installed, or unpacked by `make deps` into
    /// `.build/tools` when another package's kubectl owns /usr/bin/kubectl. `PINGCLI_TEST_KUBECTL` overrides.
    static let kubectl: String? = {
        if let path = ProcessInfo.processInfo.environment["PINGCLI_TEST_KUBECTL"] { return path }
        let listed = runProcess("/usr/bin/dpkg-query", ["-L", "kubernetes-client"], environment: ["PATH": "/usr/bin:/bin"], timeout: 30)
        if listed.status == 0, let path = listed.stdout.split(separator: "\n").first(where: { $0.hasSuffix("/bin/kubectl") }) {
            return String(path)
        }
        let unpacked = repositoryRoot + "/.build/tools/kubernetes-client/usr/bin/kubectl"
        return access(unpacked, X_OK) == 0 ? unpacked : nil
    }()

    /// util-linux's `script` (package bsdutils), which gives a command a real terminal.
    static let script: String? = access("/usr/bin/script", X_OK) == 0 ? "/usr/bin/script" : nil
}

/// A real kubectl using a kubeconfig `exec` entry that runs the built pingcli, against an API server
/// stand-in that accepts only the emulator's newest access token.
@Suite("kubectl, end to end")
struct KubectlTests {
    @Test(
        "kubectl-exec: Debian's kubectl gets a refreshed token from pingcli and the API server accepts it",
        KubectlSetup.needed)
    func kubectlUsesTheExecCredential() throws {
        let kubectl = try #require(DebianTools.kubectl)
        // The cached token is inside the refresh threshold: the exec plugin must refresh it, and the
        // API server accepts only the token issued by that refresh.
        let (emulator, sandbox, oldLine) = try expiringSession()
        let api = try KubeAPIStandIn(emulator: emulator, sandbox: sandbox)
        defer { api.stop() }
        let run = api.run(kubectl, sandbox)
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("\"kind\":\"PodList\""), "\(run)")
        let newest = try #require(emulator.issuedAccessTokens.last)
        #expect(newest + "\n" != oldLine, "pingcli refreshed the token")
        #expect(api.server.requests.contains { $0.authorization == "Bearer " + newest }, "the API server saw the refreshed token")
        #expect(!api.server.requests.contains { $0.authorization == "Bearer " + oldLine.dropLast() })
        #expect(emulator.requests(to: .token).filter { $0.form["grant_type"] == "refresh_token" }.count == 1)
    }

    @Test(
        "kubectl-docs-kubeconfig: the users entry in docs/usage.md, as written (apiVersion v1beta1 for this kubectl, as its comment says), works with Debian's kubectl and asks for interactiveMode IfAvailable",
        KubectlSetup.needed)
    func documentedKubeconfig() throws {
        let kubectl = try #require(DebianTools.kubectl)
        let usage = try #require(readText(DebianTools.repositoryRoot + "/docs/usage.md"))
        let section = try #require(usage.components(separatedBy: "### kubectl").dropFirst().first)
        let block = try #require(section.components(separatedBy: "```yaml\n").dropFirst().first?.components(separatedBy: "```").first)
        #expect(block.contains("interactiveMode: IfAvailable") && !block.contains("Never"), "\(block)")
        let users =
            block
            .replacingOccurrences(of: "command: pingcli", with: "command: \(Locations.pingcli)")
            .replacingOccurrences(
                of: "apiVersion: client.authentication.k8s.io/v1 ", with: "apiVersion: client.authentication.k8s.io/v1beta1 ")
        #expect(users != block && users.contains("v1beta1"), "the snippet has the command and apiVersion lines this test expects")
        let (emulator, sandbox) = try loggedIn(profile: "k8s")
        let api = try KubeAPIStandIn(emulator: emulator, sandbox: sandbox, users: users) { $0.hasPrefix("Bearer ey") }
        defer { api.stop() }
        let run = api.run(kubectl, sandbox)
        #expect(run.status == 0 && run.stdout.contains("\"kind\":\"PodList\""), "\(run)")
        // The snippet hands out the ID token of profile k8s.
        let idToken = sandbox.run(["token", "--id-token", "--raw", "--profile", "k8s"]).stdout.dropLast()
        #expect(!idToken.isEmpty && api.server.requests.contains { $0.authorization == "Bearer " + idToken }, "\(api.server.requests)")
    }
}
