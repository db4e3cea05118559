import Foundation
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

    @Test(
        "cache-generation-crash-window: a cache one generation ahead of its record (a crash between the two writes) is read, and the next write goes past it, so a copy of that cache is refused afterwards"
    )
    func crashWindow() throws {
        let harness = try loggedIn(lifetime: 3600)
        let cache = harness.stateDirectory + "/tokens.enc"
        func recorded() throws -> UInt64 {
            try #require(
                UInt64(try String(contentsOfFile: harness.generationFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        let before = try recorded()
        #expect(harness.login().status == 0)
        #expect(try recorded() == before + 1)
        // The crash: the cache of generation before + 1 was written (and its tokens handed out), its record not.
        try Data("\(before)\n".utf8).write(to: URL(fileURLWithPath: harness.generationFile))
        let crashed = try #require(FileManager.default.contents(atPath: cache))
        let read = harness.run(["token", "--raw"])
        #expect(read.status == 0 && read.stdout == harness.emulator.newestTokenLine, "one ahead of the record is read: \(read)")
        #expect(harness.login().status == 0)
        #expect(try recorded() == before + 2, "the next write went past the cache one ahead, instead of reusing its generation")
        try crashed.write(to: URL(fileURLWithPath: cache))  // in place: mode 0600 kept
        let run = harness.run(["token", "--raw"])
        expectOneLineError(
            run, status: 4, rule: .cacheRolledBack, contains: ["older than the last one pingcli wrote"],
            secrets: harness.emulator.issuedAccessTokens)
    }
}
