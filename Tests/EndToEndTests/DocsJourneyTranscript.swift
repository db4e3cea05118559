import Foundation
import PingEmulator
import Testing

/// usage.md's transcript of a journey sign-in, run as written on a pseudo-terminal against the emulator's
/// PingAM journeys (its issuer and client in place of the example's, alice in place of ada), the push
/// approved at the emulator while pingcli waits, and compared with what the terminal showed.
@Suite("docs examples: journey transcript")
struct DocsJourneyTranscript {
    static let transcript =
        #"text block "$ pingcli login --issuer https://tenant.example.com/am/oauth2/realms/root/realms/alpha --client-id pingcli --journey "Second Factor"" #d0c0611a3f183069"#
    static let issuer = "https://tenant.example.com/am/oauth2/realms/root/realms/alpha"

    @Test("docs-usage-journey-transcript: the journey sign-in of usage.md, typed on a terminal: each line as the transcript shows it")
    func transcriptLines() throws {
        let documented = try DocExamples.text(Self.transcript).split(separator: "\n").map(String.init)
        let command = try #require(documented.first)
        #expect(command == "$ pingcli login --issuer \(Self.issuer) --client-id pingcli --journey \"Second Factor\"")
        let (emulator, _, terminal) = try AMJourneys.walking("Second Factor")
        terminal.answer("Choose 1-2 [1]: ", "2")
        #expect(terminal.waitFor("(checking again in 5 s)"), "\(terminal.screen)")
        #expect(emulator.decidePush(username: "alice", approve: true) == 1)
        let run = terminal.finish()
        #expect(run.status == 0, "\(run)")
        let expected = documented.dropFirst().map {
            $0.replacingOccurrences(of: Self.issuer, with: emulator.issuer).replacingOccurrences(
                of: "User Name: ada", with: "User Name: alice"
            )
            .replacingOccurrences(of: " as Ada Lovelace ", with: " as \(AMJourneys.alice.name) ")
        }
        #expect(expected.count == 8)
        expectShownInOrder(expected, in: run.stdout)
    }
}
