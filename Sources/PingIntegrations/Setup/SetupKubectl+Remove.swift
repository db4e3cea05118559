import PingBase
import PingCommandLine
import PingFlowCore
import PingLogin
import PingState

/// `pingcli setup kubectl --remove [--kubeconfig FILE] [--user NAME] [--dry-run]`: the user entry setup
/// wrote for the profile, taken out; a user of that name that runs something else (a person's) stays.
extension SetupKubectl {
    package static func remove(
        _ parsed: ParsedOptions, common: CommonOptions, environment: Environment, context: CommandContext
    ) throws(PingCLIError) {
        let (dryRun, path, user) = try target(parsed, common: common, environment: environment)
        let place = "kubeconfig \(displaySafe(path)), user \"\(displaySafe(user))\""
        let command = try SetupCommand.ownPath()
        let args = ["token", "--format", "exec-credential", "--id-token", "--profile", common.profile.value]
        guard let existing = try read(path) else { return context.console.err("\(place): no such file: nothing to change.") }
        let kubectl = KubectlTool.find(environment)
        let found: (text: String, ours: Bool)?
        do {
            found = try KubeconfigUsers.remove(named: user, from: existing) { item, indent in
                // Rewritten by kubectl (its own quoting and order): ours when kubectl reads our command and arguments.
                writtenBySetup(item, indent: indent, command: command, args: args)
                    || (kubectl.flatMap { try? $0.users(in: path).contains(.init(name: user, command: command, args: args)) } ?? false)
            }
        } catch {
            throw .failure(
                "cannot edit the kubeconfig \(displaySafe(path)): \(error.reason): remove the user with kubectl config delete-user \(shellQuoted(user))",
                rule: .setupKubeconfig)
        }
        guard let found else { return context.console.err("\(place): no such user: nothing to change.") }
        guard found.ours else {
            throw .failure(
                "\(place) does not run pingcli for profile \"\(common.profile)\" (not what setup wrote): nothing removed; kubectl config delete-user \(shellQuoted(user)) removes it anyway",
                rule: .setupRemoveForeign)
        }
        if dryRun {
            return context.console.out("# \(place) (would be removed): kubectl config delete-user \(shellQuoted(user))")
        }
        try write(found.text, to: path) { (temporary: String) throws(PingCLIError) in
            guard let kubectl, try kubectl.users(in: temporary).contains(where: { $0.name == user }) else { return }
            throw .failure(
                "kubectl still reads user \"\(displaySafe(user))\" in the edited kubeconfig: nothing written; remove it with kubectl config delete-user \(shellQuoted(user))",
                rule: .setupKubeconfig)
        }
        context.console.err("\(place) removed: kubectl no longer runs pingcli for it (a context naming it has no user now).")
    }

    /// Whether an item's lines are the exec entry setup writes: this pingcli, its arguments for the profile.
    package static func writtenBySetup(_ item: ArraySlice<String>, indent: Int, command: String, args: [String]) -> Bool {
        let lines = item.map { String($0.dropFirst(indent)) }
        let argLines = ["      args:"] + args.map { "      - " + KubeconfigUsers.quoted($0) }
        guard lines.contains("      command: " + KubeconfigUsers.quoted(command)),
            let start = lines.firstIndex(of: "      args:"), lines.count >= start + argLines.count
        else { return false }
        return Array(lines[start..<(start + argLines.count)]) == argLines
            && (start + argLines.count == lines.count || !lines[start + argLines.count].hasPrefix("      - "))
    }
}
