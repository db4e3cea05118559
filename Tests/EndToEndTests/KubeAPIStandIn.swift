import Foundation
import PingEmulator

/// An API server stand-in for Debian's kubectl that accepts only the emulator's newest access token,
/// behind socat for TLS (kubectl sends exec credentials only over https), and a kubeconfig whose user
/// runs the built pingcli as its exec plugin.
final class KubeAPIStandIn {
    static let podList = #"{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]}"#
    static let podsPath = "/api/v1/namespaces/default/pods"
    /// The pod list as the table `kubectl get pods` asks for (`Accept: …;as=Table;…`): one pod, as in
    /// docs/usage.md's transcript.
    static let podTable = """
        {"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"1"},"columnDefinitions":[\
        {"name":"Name","type":"string","format":"name"},{"name":"Ready","type":"string"},{"name":"Status","type":"string"},\
        {"name":"Restarts","type":"integer"},{"name":"Age","type":"string"}],"rows":[{"cells":["web-5d8f7c9b6d-x2x4k","1/1","Running",0,"3d"],\
        "object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"web-5d8f7c9b6d-x2x4k","namespace":"default"}}}]}
        """
    /// What kubectl asks before `get pods`: the API versions, groups and the core group's resources.
    static let discovery = [
        "/api":
            #"{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"127.0.0.1"}]}"#,
        "/apis": #"{"kind":"APIGroupList","apiVersion":"v1","groups":[]}"#,
        "/api/v1":
            #"{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"pods","singularName":"","namespaced":true,"kind":"Pod","verbs":["get","list"],"shortNames":["po"]}]}"#,
    ]

    let server: GuardedServer
    let tls: LoopbackTLS
    /// The kubeconfig's path.
    let kubeconfig: String

    /// `environment`: the exec entry's `env:` (a kubeconfig that carries the issuer and client for a new machine).
    /// `users`: the kubeconfig's `users:` list instead of pingcli's, with a user named `pingone` (as in
    /// docs/usage.md); `accepts`:
    /// which bearer tokens the stand-in takes (default: the emulator's newest access token).
    init(
        emulator: Emulator, sandbox: Sandbox, environment: [String: String] = [:], users: String? = nil,
        accepts: (@Sendable (String) -> Bool)? = nil
    ) throws {
        server = try GuardedServer { request in
            let newest = emulator.issuedAccessTokens.last.map { "Bearer " + $0 }
            guard let bearer = request.authorization, accepts.map({ $0(bearer) }) ?? (bearer == newest) else { return .unauthorized }
            guard request.method == "GET" else { return .notFound }
            let table = request.accept?.contains("as=Table") == true
            guard let body = request.path == Self.podsPath ? (table ? Self.podTable : Self.podList) : Self.discovery[request.path] else {
                return .notFound
            }
            return .init(status: 200, headers: [("Content-Type", "application/json")], body: Array(body.utf8))
        }
        do {
            tls = try LoopbackTLS(backendPort: server.port, directory: sandbox.root, name: "api")
        } catch {
            server.stop()
            throw error
        }
        let env = environment.sorted { $0.key < $1.key }.map { "\n        - {name: \($0.key), value: \"\($0.value)\"}" }.joined()
        // Debian's kubectl 1.20 speaks exec v1beta1 only; it ignores interactiveMode, which later ones read
        // (IfAvailable: stdin is handed over when it is a terminal, and spec.interactive says so).
        let text = """
            apiVersion: v1
            kind: Config
            clusters:
            - name: stand-in
              cluster:
                server: https://127.0.0.1:\(tls.port)
                certificate-authority: \(tls.certFile)
            contexts:
            - name: stand-in
              context: {cluster: stand-in, user: \(users == nil ? "pingcli" : "pingone")}
            current-context: stand-in

            """
            + (users
                ?? """
                users:
                - name: pingcli
                  user:
                    exec:
                      apiVersion: client.authentication.k8s.io/v1beta1
                      command: \(Locations.pingcli)
                      args: ["token", "--format", "exec-credential"]
                      interactiveMode: IfAvailable
                      env:\(env.isEmpty ? " []" : env)
                """)
        kubeconfig = sandbox.root + "/kubeconfig"
        try text.write(toFile: kubeconfig, atomically: true, encoding: .utf8)
    }

    func stop() {
        tls.stop()
        server.stop()
    }

    /// `kubectl get --raw` of the pod list with its output to pipes (so kubectl is not interactive).
    func run(_ kubectl: String, _ sandbox: Sandbox) -> CLIRun {
        runProcess(kubectl, ["--kubeconfig", kubeconfig, "get", "--raw", Self.podsPath], environment: sandbox.environment, timeout: 120)
    }

    /// The same as a shell command (for script and sh -c).
    func getPods(_ kubectl: String) -> String {
        "'\(kubectl)' --kubeconfig '\(kubeconfig)' get --raw \(Self.podsPath)"
    }
}
