import PingCommandLine

/// Which of `setup`'s options each target takes: the parser refuses the others, and the completions
/// offer only these.
extension SetupCommand {
    /// The options `setup TARGET` does not take (`git` has no kubeconfig, `kubectl` no repository).
    package static func refusedOptions(_ target: String) -> [Option] { target == "git" ? [.kubeconfig, .user] : [.local] }

    /// The options `setup TARGET` takes.
    package static func specs(for target: String) -> [OptionSpec] {
        let refused = Set(refusedOptions(target).map(\.rawValue))
        return specs.filter { !refused.contains($0.name) }
    }
}
