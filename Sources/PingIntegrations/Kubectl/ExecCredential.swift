import PingBase

/// Kubernetes' client-go credential plugin protocol
/// ([ExecCredential](https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins)):
/// which version kubectl asked for, and the object pingcli answers with.
package enum ExecCredential {
    package static let v1 = "client.authentication.k8s.io/v1"
    package static let v1beta1 = "client.authentication.k8s.io/v1beta1"

    /// The most `KUBERNETES_EXEC_INFO` may hold: room for the cluster's CA bundle, which kubectl adds
    /// when the kubeconfig says `provideClusterInfo: true` (Linux caps one environment string at 128 KiB).
    package static let maximumInfoBytes = 64 * 1024

    /// The gate for `KUBERNETES_EXEC_INFO`: absent or empty means `v1`; otherwise it must be at most
    /// 64 KiB of JSON, one object with `"kind": "ExecCredential"` and an `apiVersion` pingcli speaks.
    package static func requestedVersion(_ info: String?) throws(PingCLIError) -> String {
        try request(info).version
    }

    /// The gate's whole answer: the version, and `spec.interactive` when the object has it (kubectl 1.22
    /// and later always send it; older ones send v1beta1 without it). A `spec` that is not an object, or
    /// an `interactive` that is not true or false, is refused like the rest.
    package static func request(_ info: String?) throws(PingCLIError) -> (version: String, interactive: Bool?) {
        guard let info, !info.isEmpty else { return (v1, nil) }
        let fix = "check the kubeconfig's exec entry (apiVersion: \(v1) or \(v1beta1))"
        guard info.utf8.count <= maximumInfoBytes else {
            throw .usage("KUBERNETES_EXEC_INFO is longer than \(maximumInfoBytes / 1024) KiB: \(fix)", rule: .execInfoGate)
        }
        guard let object = JSONValue.parseObject(Array(info.utf8)) else {
            throw .usage("KUBERNETES_EXEC_INFO is not a JSON object: \(fix)", rule: .execInfoGate)
        }
        guard object["kind"]?.stringValue == "ExecCredential" else {
            throw .usage("KUBERNETES_EXEC_INFO is not an ExecCredential (its kind is missing or different): \(fix)", rule: .execInfoGate)
        }
        guard let version = object["apiVersion"]?.stringValue else {
            throw .usage("KUBERNETES_EXEC_INFO has no apiVersion string: \(fix)", rule: .execInfoGate)
        }
        guard version == v1 || version == v1beta1 else {
            throw .usage(
                "KUBERNETES_EXEC_INFO asks for \"\(displaySafe(version, limit: 80))\", which pingcli does not speak: \(fix)",
                rule: .execInfoGate)
        }
        guard let spec = object["spec"] else { return (version, nil) }
        guard let members = spec.objectValue else {
            throw .usage("KUBERNETES_EXEC_INFO's spec is not an object: \(fix)", rule: .execInfoGate)
        }
        guard let interactive = members["interactive"] else { return (version, nil) }
        guard let value = interactive.boolValue else {
            throw .usage("KUBERNETES_EXEC_INFO's spec.interactive is not true or false: \(fix)", rule: .execInfoGate)
        }
        return (version, value)
    }

    /// The ExecCredential kubectl reads from stdout: the token, and when it expires so kubectl can
    /// cache it until then.
    package static func object(version: String, token: String, expiresAt: Double?) -> JSONValue {
        var status: [String: JSONValue] = ["token": .string(token)]
        if let expiresAt { status["expirationTimestamp"] = .string(formatUTC(expiresAt)) }
        return .object([
            "apiVersion": .string(version), "kind": .string("ExecCredential"), "spec": .object([:]), "status": .object(status),
        ])
    }
}
