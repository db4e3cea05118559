import Foundation
import PingEmulator
import Testing

/// usage.md's transcript of a journey that signs in through another identity provider, run on a
/// pseudo-terminal against the emulator pair (AM's issuer and the provider's origin in place of the
/// example's, alice in place of Ada): the menu, the choice, the browser double at the provider, the
/// journey's end; each documented line shown in this order (the provider's URL line by its start).
@Suite("docs examples: social sign-in transcript")
struct DocsSocialTranscript {
    static let transcript =
        #"text block "$ pingcli login --issuer https://tenant.example.com/am/oauth2/realms/root/realms/alpha --client-id pingcli --journey Social" #ed202beb1c5f414a"#
    static let issuer = "https://tenant.example.com/am/oauth2/realms/root/realms/alpha"

    @Test("docs-usage-journey-idp: the federated journey of usage.md, on a terminal: each line as the transcript shows it")
    func transcriptLines() throws {
        let documented = try DocExamples.text(Self.transcript).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let command = try #require(documented.first)
        #expect(command == "$ pingcli login --issuer \(Self.issuer) --client-id pingcli --journey Social")
        let pair = try SocialPair()
        let terminal = try TerminalSession(pair.sandbox, AMJourneys.login(pair.am, tree: "Social"))
        terminal.answer("Choose 1-3: ", "1")
        let run = terminal.finish()
        pair.expectSignedIn(run)
        let origin = "http://127.0.0.1:\(pair.provider.port)"
        let expected = documented.dropFirst().filter { !$0.isEmpty }.map {
            $0.replacingOccurrences(of: Self.issuer, with: pair.am.issuer)
                .replacingOccurrences(of: "https://sso.example.com/as/authorize", with: pair.provider.url(for: .authorize) ?? "")
                .replacingOccurrences(of: "https://sso.example.com", with: origin)
                .replacingOccurrences(of: " as Ada Lovelace ", with: " as \(AMJourneys.alice.name) ")
        }
        #expect(expected.count == 11)
        expectShownInOrder(expected, in: run.stdout) { line, shown in
            // The provider's URL: its start up to AM's state, which differs each time.
            let wanted = line.hasSuffix("state=…") ? String(line.dropLast("state=…".count)) : line
            let client = wanted.replacingOccurrences(of: "127.0.0.1:8765/callback.", with: "127.0.0.1:\(pair.port)/callback.")
                .replacingOccurrences(
                    of: "redirect_uri=http%3A%2F%2F127.0.0.1%3A8765", with: "redirect_uri=http%3A%2F%2F127.0.0.1%3A\(pair.port)")
            // The wait: what is left of --timeout (300 s by default) once the menu was answered.
            return shown == client || (line.hasSuffix("state=…") && shown.hasPrefix(client))
                || (line.hasPrefix("Waiting up to ") && shown.hasPrefix("Waiting up to 2") && shown.hasSuffix(" s (Ctrl-C to cancel)…"))
        }
    }
}
