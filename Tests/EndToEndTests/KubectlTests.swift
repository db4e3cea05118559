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
}

/// A real kubectl using a kubeconfig `exec` entry that runs the built pingcli, against an API server
/// stand-in that accepts only the emulator's newest access token.
@Suite("kubectl, end to end")
struct KubectlTests {
    static let podList = #"{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]}"#

    @Test(
        "kubectl-exec: Debian's kubectl gets a refreshed token from pingcli and the API server accepts it",
        .enabled(if: DebianTools.kubectl != nil, "Debian's kubectl (kubernetes-client) is missing: run make deps"))
    func kubectlUsesTheExecCredential() throws {
        let kubectl = try #require(DebianTools.kubectl)
        // The cached token is inside the refresh threshold: the exec plugin must refresh it, and the
        // API server accepts only the token issued by that refresh.
        let (emulator, sandbox, oldLine) = try expiringSession()
        defer { emulator.stop() }
        let server = try GuardedServer { request in
            guard let newest = emulator.issuedAccessTokens.last, request.authorization == "Bearer " + newest else { return .unauthorized }
            guard request.method == "GET", request.path == "/api/v1/namespaces/default/pods" else { return .notFound }
            return .init(status: 200, headers: [("Content-Type", "application/json")], body: Array(Self.podList.utf8))
        }
        defer { server.stop() }
        // kubectl sends exec credentials only over https: socat terminates TLS in front of the stand-in.
        let tls = try LoopbackTLS(backendPort: server.port, directory: sandbox.root, name: "api")
        defer { tls.stop() }
        let (certFile, tlsPort) = (tls.certFile, tls.port)
        // Debian's kubectl 1.20 speaks exec v1beta1 only (and says so in KUBERNETES_EXEC_INFO).
        let kubeconfig = """
            apiVersion: v1
            kind: Config
            clusters:
            - name: stand-in
              cluster:
                server: https://127.0.0.1:\(tlsPort)
                certificate-authority: \(certFile)
            contexts:
            - name: stand-in
              context: {cluster: stand-in, user: pingcli}
            current-context: stand-in
            users:
            - name: pingcli
              user:
                exec:
                  apiVersion: client.authentication.k8s.io/v1beta1
                  command: \(Locations.pingcli)
                  args: ["token", "--format", "exec-credential"]
            """
        let kubeconfigPath = sandbox.root + "/kubeconfig"
        try kubeconfig.write(toFile: kubeconfigPath, atomically: true, encoding: .utf8)
        let run = runProcess(
            kubectl, ["--kubeconfig", kubeconfigPath, "get", "--raw", "/api/v1/namespaces/default/pods"],
            environment: sandbox.environment, timeout: 120)
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("\"kind\":\"PodList\""), "\(run)")
        let newest = try #require(emulator.issuedAccessTokens.last)
        #expect(newest + "\n" != oldLine, "pingcli refreshed the token")
        #expect(server.requests.contains { $0.authorization == "Bearer " + newest }, "the API server saw the refreshed token")
        #expect(!server.requests.contains { $0.authorization == "Bearer " + oldLine.dropLast() })
        #expect(emulator.requests(to: .token).filter { $0.form["grant_type"] == "refresh_token" }.count == 1)
    }
}
