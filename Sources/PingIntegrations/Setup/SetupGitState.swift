import PingBase
import PingFlowCore
import PingLogin
import PingPlatform
import PingState

/// What `setup git` finds before it writes, so that a second run changes nothing, and what `setup git
/// --remove` takes out: only the two helper values setup writes for the URL (the empty reset and this
/// pingcli for the profile), never a helper a person added.
extension SetupCommand {
    /// The values of `key` in git's config at `scope` (`--global`, `--local`), in order; [] when unset.
    package static func gitValues(_ key: String, scope: String) throws(PingCLIError) -> [String] {
        let (status, output) = try captureOutput(["git", "config", scope, "--null", "--get-all", key], rule: .setupGitFailed)
        // 1: the key is not set; 128 (or other): no repository for --local, or an unreadable config.
        guard status == 0 else {
            guard status == 1 else {
                throw .failure(
                    "git config \(scope) --get-all \(key) failed (exit \(status))\(scope == "--local" ? ": run it inside the repository, or leave out --local" : ": check that git can read your global config (~/.gitconfig)")",
                    rule: .setupGitFailed)
            }
            return []
        }
        return output.split(separator: 0, omittingEmptySubsequences: false).dropLast().map { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether git's config already sends `host` to this pingcli for `profile`, and the profile already
    /// lists the host: a second `setup git` then has nothing to change.
    package static func gitIsSetUp(
        _ host: GitHost, profile: ProfileName, scope: String, helper: String, context: CommandContext
    ) throws(PingCLIError) -> Bool {
        guard try gitValues(helperKey(host), scope: scope) == ["", helper] else { return false }
        return try StoreAdvice.worded(context.store.readProfile(profile))?.gitHosts?.contains(host) ?? false
    }

    /// `setup git HOST --remove`: git's helper values for the URL that setup wrote, unset (git drops the
    /// section when nothing else is left in it); other helpers, and the profile's host list, stay.
    package static func removeGit(
        _ host: GitHost, profile: ProfileName, local: Bool, dryRun: Bool, context: CommandContext
    ) throws(PingCLIError) {
        let scope = local ? "--local" : "--global"
        let key = helperKey(host)
        let helper = try helperCommand(profile: profile)
        let values = try gitValues(key, scope: scope)
        var ours: [String] = []
        for value in ["", helper] where values.contains(value) { ours.append(value) }
        let kept = values.filter { !ours.contains($0) }
        let commands = ours.map { ["git", "config", scope, "--fixed-value", "--unset-all", key, $0] }
        let keepsHost =
            "profile \"\(profile)\" still lists \(host) as a git host: pingcli git-credential --profile \(profile) configure --remove \(host) takes it out"
        guard !commands.isEmpty else {
            return context.console.err(
                "git's \(local ? "repository" : "global") config has no helper of pingcli's for https://\(host): nothing to change.")
        }
        if dryRun {
            for command in commands { context.console.out(command.map(shellQuoted).joined(separator: " ")) }
            return
        }
        for command in commands {
            let status = try runGit(command)
            guard status == 0 else {
                throw .failure(
                    "\(command.prefix(5).joined(separator: " ")) failed (exit \(status)): check that git can write that config",
                    rule: .setupGitFailed)
            }
        }
        let others = kept.isEmpty ? "" : " (\(kept.count) other helper\(kept.count == 1 ? "" : "s") for it kept)"
        let listed = (try? context.store.readProfile(profile)?.gitHosts?.contains(host)) == true
        context.console.err("git no longer asks pingcli for https://\(host)\(others)\(listed ? "; " + keepsHost : "").")
    }
}
