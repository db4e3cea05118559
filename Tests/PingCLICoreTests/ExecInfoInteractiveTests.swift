import Testing

@testable import PingCommands
@testable import PingIntegrations

/// `spec.interactive` in kubectl's `KUBERNETES_EXEC_INFO`: what decides whether the exec plugin may sign in.
@Suite("gates: KUBERNETES_EXEC_INFO spec.interactive")
struct ExecInfoInteractiveTests {
    static func info(_ spec: String, version: String = ExecCredential.v1) -> String {
        #"{"kind":"ExecCredential","apiVersion":""# + version + #"","spec":"# + spec + "}"
    }

    @Test("exec-info-interactive-gate: true, false, or absent (kubectl before 1.22 sends v1beta1 without it)")
    func accepted() throws {
        #expect(try ExecCredential.request(Self.info(#"{"interactive":true}"#)) == (ExecCredential.v1, true))
        #expect(try ExecCredential.request(Self.info(#"{"interactive":false,"cluster":{}}"#)) == (ExecCredential.v1, false))
        let old = try ExecCredential.request(Self.info("{}", version: ExecCredential.v1beta1))
        #expect(old.version == ExecCredential.v1beta1 && old.interactive == nil)
        let bare = try ExecCredential.request(#"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1"}"#)
        #expect(bare.interactive == nil)
        #expect(try ExecCredential.request(nil).interactive == nil)
    }

    @Test("exec-info-interactive-gate: a spec that is not an object, or an interactive that is not a boolean, is a usage error")
    func refused() {
        for spec in [#""yes""#, "null", "[]", #"{"interactive":"true"}"#, #"{"interactive":1}"#, #"{"interactive":null}"#] {
            do {
                _ = try ExecCredential.request(Self.info(spec))
                Issue.record("accepted spec \(spec)")
            } catch {
                #expect(error.status == .usage, "\(error)")
                #expect(error.message.contains("KUBERNETES_EXEC_INFO"), "\(error)")
            }
        }
    }
}
