import PingBase

/// The step after `setup kubectl` wrote the user: a kubectl command that puts it in a context, one that
/// works with that kubeconfig (named with `--kubeconfig` when kubectl would not read it by default) and
/// in its state (no current context: a new one on the kubeconfig's first cluster, its clusters named).
extension SetupKubectl {
    package static func contextAdvice(_ text: String, path: String, user: String, environment: Environment) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let defaultPath = try? kubeconfigPath(nil, environment: environment)
        let kubectl = defaultPath == path ? "kubectl" : "kubectl --kubeconfig \(shellQuoted(path))"
        let current = lines.first { KubeconfigUsers.isKey("current-context", $0) }
            .flatMap { KubeconfigUsers.scalar(KubeconfigUsers.inlineValue($0)) }
        if let current, !current.isEmpty {
            return "Use it in a context: \(kubectl) config set-context --current --user \(shellQuoted(user))"
        }
        let clusters = names(under: "clusters", in: lines)
        guard let cluster = clusters.first else {
            return
                "The kubeconfig has no cluster and no current context: add the cluster (\(kubectl) config set-cluster NAME --server URL), then \(kubectl) config set-context NAME --cluster NAME --user \(shellQuoted(user)) && \(kubectl) config use-context NAME"
        }
        let context = shellQuoted(user + "@" + cluster)
        let others =
            clusters.count > 1
            ? " (its clusters: \(clusters.map { displaySafe($0, limit: 80) }.joined(separator: ", ")); name another with --cluster)" : ""
        return
            "The kubeconfig has no current context: \(kubectl) config set-context \(context) --cluster \(shellQuoted(cluster)) --user \(shellQuoted(user)) && \(kubectl) config use-context \(context)\(others)"
    }

    /// The `name:` of each item of the top-level block sequence `key` (`clusters`, `contexts`); [] when
    /// there is none pingcli reads.
    package static func names(under key: String, in lines: [String]) -> [String] {
        guard let index = lines.firstIndex(where: { KubeconfigUsers.isKey(key, $0) }), KubeconfigUsers.inlineValue(lines[index]).isEmpty,
            let block = try? KubeconfigUsers.items(lines, key: index)
        else { return [] }
        return block.items.compactMap { KubeconfigUsers.name(of: lines[$0], indent: block.indent) }
    }
}
