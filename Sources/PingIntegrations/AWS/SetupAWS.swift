import PingAWS
import PingBase
import PingCloud
import PingCommandLine
import PingFlowCore
import PingLogin
import PingPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// `pingcli setup aws --role-arn ARN [--aws-profile NAME]`: the AWS config file's `credential_process`
/// line for an AWS CLI profile, running this pingcli's `aws credential-process` for the pingcli profile.
/// Idempotent; `--remove` takes the line out; `--dry-run` prints and changes nothing; every other line of
/// the file stays as it was.
package enum SetupAWS {
    /// The AWS config file: `AWS_CONFIG_FILE`, else `~/.aws/config`, as the AWS CLI finds it.
    package static func configPath(environment: Environment) throws(PingCLIError) -> String {
        if let path = environment["AWS_CONFIG_FILE"], !path.isEmpty {
            guard path.hasPrefix("/") else {
                throw .usage("AWS_CONFIG_FILE must be an absolute path, not \"\(displaySafe(path, limit: 80))\"", rule: .awsConfigFile)
            }
            return path
        }
        guard let home = environment["HOME"], home.hasPrefix("/") else {
            throw .usage("HOME is not set to an absolute path: set AWS_CONFIG_FILE to the AWS config file", rule: .homeMissing)
        }
        return home + "/.aws/config"
    }

    /// The AWS CLI profile's name: 1 to 64 of letters, digits and `_-.@+`; default `pingcli-PROFILE`.
    package static func awsProfile(_ option: String?, profile: ProfileName) throws(PingCLIError) -> String {
        let name = option ?? "pingcli-\(profile)"
        guard (1...64).contains(name.utf8.count),
            name.utf8.allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit || Array("_-.@+".utf8).contains($0) })
        else {
            throw .usage("--aws-profile must be 1 to 64 of letters, digits and _-.@+", rule: .awsConfigFile)
        }
        return name
    }

    /// The `credential_process` command: this pingcli by its absolute path, then the options, each quoted
    /// as botocore's shlex reads them back.
    package static func command(profile: ProfileName, parsed: ParsedOptions) throws(PingCLIError) -> String {
        var words = [try SetupCommand.ownPath(), "aws", "credential-process", "--profile", profile.value]
        for option in AWSCommand.RoleOption.allCases {
            if let value = parsed.value(option) { words += ["--" + option.rawValue, value] }
        }
        return words.map(shellQuoted).joined(separator: " ")
    }

    package static func run(
        _ parsed: ParsedOptions, profile: ProfileName, remove: Bool, dryRun: Bool, environment: Environment, context: CommandContext
    ) throws(PingCLIError) {
        let path = try configPath(environment: environment)
        let name = try awsProfile(parsed.value(SetupCommand.Option.awsProfile), profile: profile)
        var command = ""
        if !remove {
            // The options are checked as credential-process will check them, before anything is written.
            guard let role = parsed.value(AWSCommand.RoleOption.roleARN) else {
                throw .usage("pingcli setup aws needs --role-arn ARN (the IAM role to assume): see pingcli setup --help", rule: .awsRoleARN)
            }
            do {
                _ = try RoleARN(role)
                _ = try parsed.value(AWSCommand.RoleOption.sessionName).map { text throws(AWSInputFailure) in try RoleSessionName(text) }
                _ = try parsed.value(AWSCommand.RoleOption.region).map { text throws(AWSInputFailure) in try STSEndpoint.checkedRegion(text)
                }
            } catch {
                throw AWSAdvice.input(error)
            }
            if let text = parsed.value(AWSCommand.RoleOption.duration) {
                guard let value = Int(text), AssumeRoleWithWebIdentity.durations.contains(value) else { throw AWSAdvice.input(.duration) }
            }
            command = try Self.command(profile: profile, parsed: parsed)
        }
        var file = AWSConfigFile(
            try SetupKubectl.read(path, what: "AWS config file", hint: "set AWS_CONFIG_FILE to another file", rule: .awsConfigFile) ?? "")
        let changed: Bool
        do {
            changed = remove ? try file.remove(name) : try file.set(name, command: command)
        } catch {
            guard case .duplicateSection(let header) = error else { throw .failure("cannot edit \(path)", rule: .awsConfigFile) }
            throw .failure(
                "the AWS config file \(displaySafe(path)) has \(header) twice (the AWS CLI refuses that too): merge them, then run this again",
                rule: .awsConfigFile)
        }
        let header = AWSConfigFile.header(name)
        if dryRun {
            context.console.err("pingcli: would \(changed ? "write" : "leave") \(displaySafe(path))\(changed ? "" : " as it is"):")
            context.console.out(remove ? "\(header)\n(without credential_process)" : "\(header)\n\(AWSConfigFile.key) = \(command)")
            return
        }
        guard changed else {
            context.console.err(
                remove
                    ? "AWS profile \"\(name)\" has no credential_process in \(displaySafe(path)): nothing to remove."
                    : "AWS profile \"\(name)\" already runs pingcli (profile \"\(profile)\") in \(displaySafe(path)): nothing changed.")
            return
        }
        try SetupKubectl.write(
            file.text, to: path, what: "AWS config file", hint: "set AWS_CONFIG_FILE to another file", rule: .awsConfigFile
        ) { _ in }
        context.console.err(
            remove
                ? "removed credential_process from AWS profile \"\(name)\" in \(displaySafe(path))."
                : "AWS profile \"\(name)\" now gets credentials from pingcli (profile \"\(profile)\"): aws --profile \(name) sts get-caller-identity"
        )
    }
}
