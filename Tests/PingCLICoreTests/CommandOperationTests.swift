import PingBase
import PingCommandLine
import Testing

@testable import PingCommands
@testable import PingIntegrations

/// Sub-operations are typed cases (`CommandOperation`): one parse of the operand, the same cases listed
/// by the completions, and the usage error for an operand that names none.
@Suite("command operations: typed cases, one parse, the completions' list")
struct CommandOperationTests {
    @Test("command-operation-named: each case's name parses to it; other operands give the command's usage error")
    func named() throws {
        #expect(try OTPCommand.Operation.named("code") == .code)
        #expect(try AWSCommand.Operation.named("credential-process") == .credentialProcess)
        #expect(try SetupCommand.Target.named("kubectl") == .kubectl)
        for operand in ["Code", "codes", "", " code", "code\n"] {
            #expect(throws: PingCLIError.self) { try OTPCommand.Operation.named(operand) }
        }
        let unknown = #expect(throws: PingCLIError.self) { try OTPCommand.Operation.named("frob") }
        #expect(unknown?.message == "unknown otp operation \"frob\": use add, code, list or remove (see pingcli otp --help)")
        #expect(unknown?.rule == .commandOperand)
        #expect(unknown?.status == .usage)
        let missing = #expect(throws: PingCLIError.self) { try OTPCommand.Operation.named(nil) }
        #expect(missing?.message == "pingcli otp needs an operation: add, code, list or remove (see pingcli otp --help)")
        let profiles = #expect(throws: PingCLIError.self) { try ProfilesCommand.Operation.named("lst") }
        #expect(profiles?.message == "unknown profiles operation \"lst\": use list, use or remove (see pingcli profiles --help)")
        let git = #expect(throws: PingCLIError.self) { try GitCredentialCommand.Operation.named("fill") }
        #expect(git?.message == "unknown git-credential operation \"fill\": use get, store or erase (see pingcli git-credential --help)")
    }

    @Test("command-operation-unknown-shown-safely: an operand with control characters is shown escaped and cut")
    func unknownShownSafely() {
        let error = #expect(throws: PingCLIError.self) { try OTPCommand.Operation.named("a\u{1b}[2J" + String(repeating: "x", count: 200)) }
        #expect(error?.message.contains("\u{1b}") == false)
        #expect((error?.message.count ?? 0) < 200)
    }

    @Test("otp-uri-argv: a registration URI given where the operation goes is refused without showing any of it")
    func otpURIAsOperation() {
        for operand in ["otpauth://totp/a?secret=JBSWY3DPEHPK3PXP", "OTPAUTH://hotp/a?secret=JBSWY3DPEHPK3PXP&counter=1"] {
            let error = #expect(throws: PingCLIError.self) { try OTPCommand.Operation.named(operand) }
            #expect(error?.rule == .otpUriArgv && error?.status == .usage)
            #expect(error?.message.contains("JBSW") == false && error?.message.lowercased().contains("otpauth") == false)
        }
    }

    @Test("command-operation-names: the names are the cases in order, and what the completions offer")
    func names() {
        #expect(OTPCommand.Operation.names == ["add", "code", "list", "remove"])
        #expect(OTPCommand.Operation.spelledOut == "add, code, list or remove")
        #expect(DevicesCommand.Operation.spelledOut == "remove")
        #expect(SetupCommand.Target.names == ["git", "kubectl", "aws"])
        #expect(CompletionCommand.operations("otp") == OTPCommand.Operation.names)
        #expect(CompletionCommand.operations("profiles") == ProfilesCommand.Operation.names)
        #expect(CompletionCommand.operations("key") == ["migrate"])
        #expect(CompletionCommand.operations("devices") == ["remove"])
        #expect(CompletionCommand.operations("setup") == ["git", "kubectl", "aws"])
        #expect(CompletionCommand.operations("aws") == ["credential-process", "env"])
        #expect(CompletionCommand.operations("git-credential") == ["get", "store", "erase", "configure"])
    }

    @Test("command-operation-setup-options: each setup target refuses the options of the others")
    func setupOptions() {
        let names = { (target: SetupCommand.Target) in Set(SetupCommand.specs(for: target).map(\.name)) }
        #expect(names(.aws).contains("role-arn") && !names(.git).contains("role-arn") && !names(.kubectl).contains("role-arn"))
        #expect(names(.git).contains("local") && !names(.kubectl).contains("local") && !names(.aws).contains("local"))
        #expect(names(.kubectl).contains("kubeconfig") && !names(.git).contains("kubeconfig"))
    }
}
