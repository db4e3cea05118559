import Foundation
import PingEmulator
import Testing

/// usage.md's transcript of kubectl signing in on first use, compared with what Debian's kubectl and
/// pingcli really show on a terminal.
@Suite("docs examples: kubectl transcript")
struct DocsKubectlTranscript {
    static let transcript = #"sh block "$ kubectl get pods" #fe34f6495bdebb33"#

    @Test(
        "docs-usage-kubectl-transcript: pingcli's lines of the kubectl sign-in transcript appear, in order, on kubectl's terminal",
        .enabled(if: DebianTools.kubectl != nil && KubectlSignInTests.hasScript, "Debian's kubectl or script is missing: run make deps"))
    func transcriptLines() throws {
        let kubectl = try #require(DebianTools.kubectl)
        let (emulator, sandbox) = try expiredRefreshSession(profile: "k8s")
        defer { emulator.stop() }
        let api = try KubeAPIStandIn(emulator: emulator, sandbox: sandbox, environment: ["PINGCLI_PROFILE": "k8s"])
        defer { api.stop() }
        let run = KubectlSignInTests().onTerminal(api.getPods(kubectl), sandbox)
        #expect(run.status == 0 && run.stdout.contains("\"kind\":\"PodList\""), "\(run)")
        // pingcli's lines; `$ kubectl get pods` and kubectl's table are kubectl's (the stand-in answers
        // `get --raw`, not a full API server), and `…` stands for the lines in between.
        let documented = try DocExamples.text(Self.transcript).split(separator: "\n").map(String.init)
            .filter { !$0.hasPrefix("$ ") && $0 != "…" && !$0.hasPrefix("NAME ") }
            .map {
                $0.replacingOccurrences(of: "https://auth.pingone.com/<env-id>/as", with: emulator.issuer)
                    .replacingOccurrences(of: " as Ada ", with: " as Demo User ")
            }
        #expect(documented.count == 4, "\(documented)")
        var printed = run.stdout.replacingOccurrences(of: "\r", with: "").split(separator: "\n").map(String.init)[...]
        for line in documented {
            guard let index = printed.firstIndex(of: line) else {
                Issue.record("not printed (in this order): \(line)\n--- terminal\n\(run.stdout)")
                break
            }
            printed = printed[(index + 1)...]
        }
    }

    /// A profile whose refresh token the provider no longer takes, its cache still vouching for its
    /// settings: kubectl's next call has no usable session.
    func expiredRefreshSession(profile: String) throws -> (Emulator, Sandbox) {
        let (emulator, sandbox) = try loggedIn({ $0.accessTokenLifetime = 1 }, profile: profile)
        emulator.accessTokenLifetime = 3600
        emulator.faults.tokenErrors["refresh_token"] = OAuthErrorResponse(error: "invalid_grant")
        return (emulator, sandbox)
    }
}
