import Foundation
import PingBase
import Testing

/// The generation recorded beside the key (`$XDG_DATA_HOME/pingcli/generations/<profile>`) is what
/// refuses a cache restored from a backup. A record that is not one number is refused in one line,
/// before any request, and the advice it gives works.
@Suite struct GenerationRecordTests {
    @Test(
        "generation-damaged: a generation record that is not one number refuses token in one line (exit 1), names the file, sends nothing; removing it and signing in again works"
    )
    func damaged() throws {
        let harness = try loggedIn(lifetime: 3600)
        let issued = try #require(harness.emulator.issuedAccessTokens.last)
        for garbage in ["not a number\n", "", "18446744073709551616\n", "-1\n", "1 2\n"] {
            try Data(garbage.utf8).write(to: URL(fileURLWithPath: harness.generationFile))  // in place: its mode stays 0600
            let requests = harness.emulator.requests.count
            let run = harness.run(["token", "--raw"])
            expectOneLineError(
                run, status: 1, rule: .generationDamaged, contains: [harness.generationFile, "pingcli login"], secrets: [issued])
            #expect(harness.emulator.requests.count == requests, "a request was sent with a damaged generation record")
        }
        try FileManager.default.removeItem(atPath: harness.generationFile)
        #expect(harness.login().status == 0)
        let token = harness.run(["token", "--raw"])
        #expect(token.status == 0 && token.stdout == harness.emulator.newestTokenLine, "\(token)")
        let recorded = try String(contentsOfFile: harness.generationFile, encoding: .utf8)
        #expect(UInt64(recorded.trimmingCharacters(in: .whitespacesAndNewlines)).map { $0 > 0 } == true, "\(recorded)")
    }
}
