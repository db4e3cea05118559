import PingOAuth
import Testing

@testable import PingCommandLine
@testable import PingCommands
@testable import PingIntegrations
@testable import PingLogin

/// Every command names its options by the cases of its `OptionName` enums, in its spec table and in its
/// look-ups (`ParsedOptions` answers only by case): the two must list the same options.
@Suite("option names: each command's spec table is exactly its option enums' cases")
struct OptionNameTests {
    static func names<Option: OptionName>(_ type: Option.Type) -> [String] { Option.allCases.map(\.rawValue) }

    /// Each command's spec table beside the cases of the enums its `run` reads.
    static let commands: [(command: String, specs: [OptionSpec], cases: [String])] = [
        ("login", LoginCommand.specs, names(LoginOption.self) + names(EndpointOption.self) + names(CommonOption.self)),
        (
            "token", TokenCommand.specs,
            names(TokenCommand.Option.self) + names(MinimumTTLOption.self) + names(TargetOptions.Option.self)
                + names(CommonOption.self)
        ),
        ("userinfo", UserInfoCommand.specs, names(UserInfoCommand.Option.self) + names(MinimumTTLOption.self) + names(CommonOption.self)),
        (
            "api", APICommand.specs,
            names(APICommand.Option.self) + names(MinimumTTLOption.self) + names(TargetOptions.Option.self) + names(CommonOption.self)
        ),
        (
            "dpop-proof", DPoPProofCommand.specs,
            names(DPoPProofCommand.Option.self) + names(MinimumTTLOption.self) + names(CommonOption.self)
        ),
        ("status", StatusCommand.specs, names(StatusCommand.Option.self) + names(AllProfilesOption.self) + names(CommonOption.self)),
        ("logout", LogoutCommand.specs, names(LogoutCommand.Option.self) + names(AllProfilesOption.self) + names(CommonOption.self)),
        ("profiles", ProfilesCommand.specs, names(ProfilesCommand.Option.self)),
        ("key", KeyCommand.specs, names(KeyCommand.Option.self)),
        ("otp", OTPCommand.specs, names(OTPCommand.Option.self)),
        ("devices", DevicesCommand.specs, names(DevicesCommand.Option.self)),
        (
            "git-credential", GitCredentialCommand.specs,
            names(GitCredentialCommand.Option.self) + names(MinimumTTLOption.self) + names(CommonOption.self)
        ),
        (
            "git-credential configure", GitCredentialCommand.configureSpecs,
            names(GitCredentialCommand.ConfigureOption.self) + names(CommonOption.self)
        ),
        ("setup", SetupCommand.specs, names(SetupCommand.Option.self) + names(AWSCommand.RoleOption.self) + names(CommonOption.self)),
        (
            "aws", AWSCommand.specs,
            names(AWSCommand.Option.self) + names(AWSCommand.RoleOption.self) + names(CommonOption.self)
        ),
        ("completion", CompletionCommand.specs, names(CompletionCommand.Option.self)),
    ]

    @Test("option-spec-table: every command's spec table lists exactly the cases of its option enums, each once")
    func specTablesAreTheCases() {
        for (command, specs, cases) in Self.commands {
            let listed = specs.map(\.name)
            #expect(Set(listed).count == listed.count, "\(command): an option listed twice: \(listed)")
            #expect(Set(cases).count == cases.count, "\(command): two enums name the same option: \(cases)")
            #expect(Set(listed) == Set(cases), "\(command): \(Set(listed).symmetricDifference(cases).sorted())")
        }
        // Every command in the table is checked here (git-credential's configure besides).
        #expect(Set(Self.commands.map(\.command)) == Set(PingCLI.commandNames + ["git-credential configure"]))
        for name in PingCLI.commandNames {
            let table = Self.commands.first { $0.command == name }?.specs.map(\.name)
            #expect(PingCLI.command(named: name)?.specs.map(\.name) == table, "\(name)")
        }
    }

    @Test("option-endpoint-fields: each endpoint option sets the metadata member its name says")
    func endpointOptions() {
        #expect(EndpointOption.allCases.map(\.field) == EndpointField.allCases)
        for option in EndpointOption.allCases { #expect(option.rawValue == option.field.option, "\(option)") }
    }

    @Test("option-completion-choices: every option completed from a fixed list is an option that takes a value")
    func completionChoices() {
        let specs = PingCLI.commandTable.flatMap(\.specs)
        for name in CompletionCommand.choiceOptions {
            #expect(specs.contains { $0.name == name && ($0.takesValue || !$0.optionalValues.isEmpty) }, "\(name)")
            #expect(!CompletionCommand.choices(name).isEmpty, "\(name)")
        }
    }

    @Test("option-given: the options given are read back by case, in order, each once; -h is --help")
    func givenByCase() throws {
        let parsed = try parseOptions(["--json", "--verbose"], specs: OTPCommand.specs, command: "otp")
        #expect(parsed.given(OTPCommand.Option.self) == [.json, .verbose])
        #expect(parsed.given(CommonOption.self) == [.verbose], "another enum's cases of the same name")
        #expect(parsed.flag(OTPCommand.Option.json) && !parsed.flag(OTPCommand.Option.replace))
        #expect(parsed.value(OTPCommand.Option.name) == nil)
        let help = try parseOptions(["-h"], specs: KeyCommand.specs, command: "key")
        #expect(help.flag(KeyCommand.Option.help) && help.given(KeyCommand.Option.self) == [.help])
        let values = try parseOptions(
            ["--header", "A: 1", "--method=PUT", "--header", "B: 2"], specs: APICommand.specs, command: "api")
        #expect(values.all(APICommand.Option.header) == ["A: 1", "B: 2"])
        #expect(values.value(APICommand.Option.method) == "PUT")
        #expect(values.given(APICommand.Option.self) == [.header, .method])
    }
}
