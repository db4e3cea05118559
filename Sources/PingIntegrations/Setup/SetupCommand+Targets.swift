import PingCommandLine

/// Which of `setup`'s options each target takes: the parser refuses the others, and the completions
/// offer only these.
extension SetupCommand {
    /// The options `setup TARGET` does not take (`git` has no kubeconfig, `kubectl` no repository, neither
    /// an AWS CLI profile).
    package static func refusedOptions(_ target: Target) -> [Option] {
        switch target {
        case .aws: [.kubeconfig, .user, .local]
        case .git: [.kubeconfig, .user, .awsProfile]
        case .kubectl: [.local, .awsProfile]
        }
    }

    /// The options `setup TARGET` takes (the role's only for `aws`).
    package static func specs(for target: Target) -> [OptionSpec] {
        var refused = Set(refusedOptions(target).map(\.rawValue))
        if target != .aws { refused.formUnion(AWSCommand.RoleOption.allCases.map(\.rawValue)) }
        return specs.filter { !refused.contains($0.name) }
    }
}
