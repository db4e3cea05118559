import Foundation
import PingEmulator
import Testing

/// usage.md's transcript of kubectl signing in on first use, run as written (`kubectl get pods`, Debian's
/// kubectl, the API stand-in answering its discovery and the pod table) and compared with the terminal.
@Suite("docs examples: kubectl transcript")
struct DocsKubectlTranscript {
    static let transcript = #"sh block "$ kubectl get pods" #7e8a512f51a01add"#

    @Test(
        "docs-usage-kubectl-transcript: kubectl get pods, as written, on a terminal after the session was lost: pingcli's lines and kubectl's table as the transcript shows them",
        .enabled(if: DebianTools.kubectl != nil && KubectlSignInTests.hasScript, "Debian's kubectl or script is missing: run make deps"))
    func transcriptLines() throws {
        let kubectl = try #require(DebianTools.kubectl)
        let (emulator, sandbox) = try expiredRefreshSession(profile: "k8s")
        let api = try KubeAPIStandIn(emulator: emulator, sandbox: sandbox, environment: ["PINGCLI_PROFILE": "k8s"])
        defer { api.stop() }
        let documented = try DocExamples.text(Self.transcript).split(separator: "\n").map(String.init)
        let command = try #require(documented.first?.dropFirst(2))
        #expect(command == "kubectl get pods")
        // Debian's kubectl first on PATH, the stand-in's kubeconfig in KUBECONFIG: the command as written.
        let directory = URL(fileURLWithPath: kubectl).deletingLastPathComponent().path
        let run = KubectlSignInTests().onTerminal(
            String(command), sandbox, environment: ["KUBECONFIG": api.kubeconfig, "PATH": directory + ":" + sandbox.environment["PATH"]!])
        #expect(run.status == 0, "\(run)")
        // Every other line in order (`…` stands for the lines in between), the placeholders filled in.
        let expected = documented.dropFirst().filter { $0 != "…" }.map {
            $0.replacingOccurrences(of: "https://auth.pingone.com/<env-id>/as", with: emulator.issuer)
                .replacingOccurrences(of: " as Ada ", with: " as Demo User ")
        }
        #expect(expected.count == 6, "\(expected)")
        // As the terminal shows it: a line rewritten in place (the wait's time left) as it was left.
        expectShownInOrder(expected, in: run.stdout, rewritten: true)
        #expect(api.server.requests.contains { $0.path == KubeAPIStandIn.podsPath && $0.accept?.contains("as=Table") == true })
    }

    /// A profile whose refresh token the provider no longer takes, its cache still vouching for its
    /// settings: kubectl's next call has no usable session.
    func expiredRefreshSession(profile: String) throws -> (Emulator, Sandbox) {
        let (emulator, sandbox) = try loggedIn({ $0.accessTokenLifetime = 1 }, profile: profile)
        emulator.accessTokenLifetime = 3600
        emulator.faults.tokenErrors["refresh_token"] = CannedOAuthError(error: "invalid_grant")
        return (emulator, sandbox)
    }
}
