import PingBase
import PingCommandLine
import PingFlowCore
import PingLogin
import PingPlatform
import PingState

#if canImport(Glibc)
    import Glibc
#endif

/// `pingcli setup git HOST [--local] [--dry-run]`: one command where git needed two (the profile's host
/// list and a URL-scoped credential helper in git's config), as `gh auth setup-git` does; `pingcli setup
/// kubectl` writes the kubeconfig's user entry (`SetupKubectl`). Idempotent: a second run leaves the same
/// configuration.
package enum SetupCommand {
    /// `setup`'s own options (`git` takes `--local`, `kubectl` `--kubeconfig` and `--user`).
    package enum Option: String, OptionName {
        case local, kubeconfig, user, remove
        case dryRun = "dry-run"
        case awsProfile = "aws-profile"
    }

    package static let specs: [OptionSpec] =
        [
            OptionSpec(Option.local, help: "git: write the helper to this repository's config instead of the global one"),
            OptionSpec(
                Option.kubeconfig, valueName: "FILE",
                help: "kubectl: the kubeconfig to write (default: the first file in $KUBECONFIG, else ~/.kube/config)"),
            OptionSpec(Option.user, valueName: "NAME", help: "kubectl: the kubeconfig's user entry (default: pingcli-PROFILE)"),
            OptionSpec(Option.awsProfile, valueName: "NAME", help: "aws: the AWS CLI profile to write (default: pingcli-PROFILE)"),
            OptionSpec(
                Option.remove,
                help:
                    "take out what setup wrote (only that): git's helper for HOST, the kubeconfig's user entry, or the AWS CLI profile's credential_process"
            ),
            OptionSpec(Option.dryRun, help: "print what would be written (or, with --remove, taken out), on stdout, and change nothing"),
        ] + AWSCommand.roleSpecs + CommonOptions.specs

    /// What `setup` configures.
    package enum Target: String, CommandOperation {
        case git, kubectl, aws

        package static func unknown(_ operand: String?) -> PingCLIError {
            guard let operand else {
                return .usage(
                    "pingcli setup needs a target: pingcli setup git HOST, pingcli setup kubectl, or pingcli setup aws --role-arn ARN (see pingcli setup --help)",
                    rule: .commandOperand)
            }
            return .usage(
                "pingcli setup knows git, kubectl and aws, not \"\(displaySafe(operand, limit: 40))\": see pingcli setup --help",
                rule: .commandOperand)
        }
    }

    package static let help = helpText(
        usage: """
            pingcli setup git HOST[:PORT][/PATH] [--local] [--remove] [--dry-run] [--profile NAME]
              or: pingcli setup kubectl [--kubeconfig FILE] [--user NAME] [--remove] [--dry-run] [--profile NAME]
              or: pingcli setup aws --role-arn ARN [--aws-profile NAME] [--duration SECONDS] [--session-name NAME] [--region REGION] [--remove] [--dry-run] [--profile NAME]
            """,
        summary: """
            git: lets git sign in to HOST with the profile's access token: adds HOST to the profile's git hosts
            (as pingcli git-credential configure does) and writes git's credential helper for https://HOST to
            the global git config (--local: this repository's), the helper list reset first so that no other
            helper answers for that URL. The profile must be logged in.

            kubectl: signs in when the profile has no usable session (on a terminal), shows the ID token's
            claims a cluster maps (sub, email, groups) and writes the kubeconfig's user entry: an exec plugin
            running pingcli token --format exec-credential --id-token for the profile, with the issuer and
            client in its env so that kubectl signs in on first use on another machine.
            aws: writes the AWS config file's credential_process line (AWS_CONFIG_FILE, else ~/.aws/config) for
            the AWS CLI profile --aws-profile: pingcli aws credential-process for the role, with the options given;
            every other line of the file stays as it was.

            Running any of them again changes no byte and says there is nothing to change. --remove takes out
            exactly what setup wrote (git's two helper lines for the URL; the kubeconfig's user entry while it
            still runs pingcli for the profile; the AWS CLI profile's credential_process line) and nothing a
            person wrote. --dry-run prints what would be written or taken out and changes nothing.
            """,
        specs: specs, footer: HelpExitCodes.block([0, 1, 2, 3, 4]))

    package static func run(_ arguments: [String], environment: Environment, context: CommandContext) throws(PingCLIError) {
        let (options, words) = splitOperands(arguments, specs: specs)
        let parsed = try parseOptions(options, specs: specs, command: "setup")
        if parsed.flag(CommonOption.help) { return context.console.help(help) }
        let common = try CommonOptions(parsed, environment: environment)
        let target = try Target.named(words.first)
        if let wrong = refusedOptions(target).first(where: { parsed.flag($0) }) {
            throw .usage("--\(wrong.rawValue) is not for pingcli setup \(target.rawValue): see pingcli setup --help", rule: .commandOperand)
        }
        if target != .aws, let wrong = parsed.given(AWSCommand.RoleOption.self).first {
            throw .usage("--\(wrong.rawValue) is not for pingcli setup \(target.rawValue): see pingcli setup --help", rule: .commandOperand)
        }
        switch target {
        case .aws:
            guard words.count == 1 else {
                throw .usage("pingcli setup aws takes no operand: see pingcli setup --help", rule: .commandOperand)
            }
            return try SetupAWS.run(
                parsed, profile: common.profile, remove: parsed.flag(Option.remove), dryRun: parsed.flag(Option.dryRun),
                environment: environment, context: context)
        case .kubectl:
            guard words.count == 1 else {
                throw .usage("pingcli setup kubectl takes no operand: see pingcli setup --help", rule: .commandOperand)
            }
            if parsed.flag(Option.remove) {
                return try SetupKubectl.remove(parsed, common: common, environment: environment, context: context)
            }
            return try SetupKubectl.run(parsed, common: common, environment: environment, context: context)
        case .git: break
        }
        guard words.count == 2 else {
            throw .usage("pingcli setup git needs one HOST[:PORT][/PATH]: see pingcli setup --help", rule: .commandOperand)
        }
        let host = try GitHost(checking: words[1])
        if parsed.flag(Option.remove) {
            return try removeGit(
                host, profile: common.profile, local: parsed.flag(Option.local), dryRun: parsed.flag(Option.dryRun), context: context)
        }
        try git(host, profile: common.profile, local: parsed.flag(Option.local), dryRun: parsed.flag(Option.dryRun), context: context)
    }

    /// The key git reads the helper from: `credential.https://HOST[:PORT][/PATH].helper`.
    package static func helperKey(_ host: GitHost) -> String { "credential.https://\(host.description).helper" }

    /// The helper git runs through the shell: this pingcli by its absolute path, the profile named.
    package static func helperCommand(profile: ProfileName) throws(PingCLIError) -> String {
        "!'\(try ownPath())' git-credential --profile \(profile)"
    }

    /// This pingcli's absolute path, for a tool that runs it later (git's helper, kubectl's exec plugin).
    package static func ownPath() throws(PingCLIError) -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        var path = length > 0 ? String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "pingcli"
        // Run by the front (PREFIX/bin/pingcli, which answers a cache hit itself): the tools run the front.
        let suffix = "/libexec/pingcli/pingcli"
        if path.hasSuffix(suffix) {
            let front = String(path.dropLast(suffix.count)) + "/bin/pingcli"
            if access(front, X_OK) == 0 { path = front }
        }
        guard !path.contains("'") else {
            throw .failure("pingcli's own path \(displaySafe(path)) holds a quote: move it", rule: .setupPathQuote)
        }
        return path
    }

    package static func git(_ host: GitHost, profile: ProfileName, local: Bool, dryRun: Bool, context: CommandContext) throws(PingCLIError)
    {
        let scope = local ? "--local" : "--global"
        let key = helperKey(host)
        let helper = try helperCommand(profile: profile)
        // Unreadable (no repository for --local): not set up; the write below says what is wrong.
        if (try? gitIsSetUp(host, profile: profile, scope: scope, helper: helper, context: context)) == true {
            return context.console.err(
                "git already asks pingcli (profile \"\(profile)\") for https://\(host) (\(local ? "this repository's" : "global") git config): nothing to change."
            )
        }
        let commands = [
            ["git", "config", scope, "--replace-all", key, ""],
            ["git", "config", scope, "--add", key, helper],
        ]
        if dryRun {
            context.console.out("pingcli git-credential --profile \(profile) configure \(host)")
            for command in commands { context.console.out(command.map(shellQuoted).joined(separator: " ")) }
            return
        }
        try GitCredentialCommand.configure(
            ["configure", host.description, "--profile", profile.value], environment: Environment([:]), context: context)
        for command in commands {
            let status = try runGit(command)
            guard status == 0 else {
                throw .failure(
                    "\(command.prefix(4).joined(separator: " ")) failed (exit \(status))\(local ? ": run it inside the repository, or leave out --local" : ": check that git can write your global config (~/.gitconfig)")",
                    rule: .setupGitFailed
                )
            }
        }
        context.console.err(
            "git now asks pingcli (profile \"\(profile)\") for https://\(host) (\(local ? "this repository's" : "global") git config).")
    }

    /// Runs git, its output on stderr; its exit status.
    package static func runGit(_ command: [String]) throws(PingCLIError) -> Int32 {
        switch Subprocess.spawn(command, standardOutput: 2) {
        case .failure(let error):
            throw .failure("cannot run git: \(error.reason): install git (apt-get install git)", rule: .setupGitFailed)
        case .success(let pid):
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            return Subprocess.exitCode(waitStatus: status)
        }
    }

}
