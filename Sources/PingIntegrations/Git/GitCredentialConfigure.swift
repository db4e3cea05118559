import PingBase
import PingCommandLine
import PingFlowCore
import PingLogin
import PingState

/// `pingcli git-credential configure [--remove] HOST…`: the git servers a profile's token may be given to.
extension GitCredentialCommand {
    /// `git-credential configure`'s own options.
    package enum ConfigureOption: String, OptionName {
        case remove
    }

    package static let configureSpecs: [OptionSpec] =
        [OptionSpec(ConfigureOption.remove, help: "take the hosts out of the profile's list instead of adding them")] + CommonOptions.specs

    /// Adds (or removes) hosts under the profile's lock, and writes the token cache again: the hosts
    /// are bound to it, so only a logged-in profile (whose cache vouches for it) can be changed.
    package static func configure(_ arguments: [String], environment: Environment, context: CommandContext) throws(PingCLIError) {
        // The first operand is the operation itself.
        let (options, operands) = splitOperands(arguments, specs: configureSpecs)
        var hostTexts = operands
        if let first = hostTexts.firstIndex(of: "configure") { hostTexts.remove(at: first) }
        let parsed = try parseOptions(options, specs: configureSpecs, command: "git-credential configure")
        if parsed.flag(CommonOption.help) { return context.console.help(help) }
        let common = try CommonOptions(parsed, environment: environment)
        guard !hostTexts.isEmpty else {
            throw .usage(
                "git-credential configure needs at least one HOST[:PORT][/PATH]: see pingcli git-credential --help", rule: .commandOperand)
        }
        var hosts: [GitHost] = []
        for text in hostTexts { hosts.append(try GitHost(checking: text)) }
        let name = common.profile
        let store = context.store
        let key = store.commandKey()
        _ = try? key.get()  // the key before the lock: a slow key command never runs under it
        let lock = try StoreAdvice.worded(store.takeLock(name))
        defer { lock.unlock() }
        guard let profile = try StoreAdvice.worded(store.readProfile(name)),
            let tokens = try StoreAdvice.worded(store.readTokens(name, profile: profile, key: key))
        else {
            throw .loginRequired(
                "not logged in for profile \"\(name)\": run pingcli login --profile \(name) --git-host HOST (login saves the git hosts too)",
                rule: .notLoggedIn
            )
        }
        var list = profile.gitHosts ?? []
        if parsed.flag(ConfigureOption.remove) {
            list.removeAll { hosts.contains($0) }
        } else {
            for host in hosts where !list.contains(host) { list.append(host) }
        }
        var updated = profile
        updated.gitHosts = list.isEmpty ? nil : list
        try StoreAdvice.worded(store.writeProfile(updated, as: name))
        try StoreAdvice.worded(store.writeTokens(tokens, name, profile: updated, key: key))
        context.console.err(
            list.isEmpty
                ? "Profile \"\(name)\" gives its token to no git host."
                : "Profile \"\(name)\" gives its token to git at \(list.map(\.description).joined(separator: ", ")).")
    }
}
