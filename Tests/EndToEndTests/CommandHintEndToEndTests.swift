import Foundation
import Testing

/// The words people bring from gh and gcloud, typed at the built binary.
@Suite("hints for other tools' words")
struct CommandHintEndToEndTests {
    @Test(
        "command-hint: whoami, auth login|status|logout|token and gcloud's print-access-token get one line naming pingcli's command (exit 2, nothing on stdout), help X too; the named command exists",
        arguments: [
            (["whoami"], "pingcli status"), (["auth", "login"], "pingcli login"), (["auth", "status"], "pingcli status"),
            (["auth", "logout"], "pingcli logout"), (["auth", "token"], "pingcli token"),
            (["auth", "print-access-token"], "pingcli token --raw"), (["auth"], "pingcli login"), (["help", "whoami"], "pingcli status"),
        ])
    func hint(arguments: [String], command: String) {
        let sandbox = Sandbox()
        let run = sandbox.run(arguments)
        #expect(run.status == 2 && run.stdout.isEmpty, "\(run)")
        #expect(run.rule == "command-unknown", "\(run)")
        #expect(run.stderr.hasPrefix("pingcli: pingcli has no \"") && run.stderr.contains(": run \(command) ("), "\(run)")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run)")
        let named = command.split(separator: " ").dropFirst().map(String.init)
        let help = sandbox.run(["help", named[0]])
        #expect(help.status == 0, "\(command) is not a command: \(help)")
    }
}
