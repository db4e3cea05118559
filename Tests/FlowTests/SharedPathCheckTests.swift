import Foundation
import Testing

/// A cache hit judges the directories above the profile, its cache, the key and the generation record
/// once (OpenSSH's rule, `FileSystem.beginSharedPathChecks`), and only for that read: the next command in
/// the same process judges them again.
@Suite struct SharedPathCheckTests {
    @Test(
        "safe-path-per-command: a directory that group may write, made so between two in-process token runs, is refused by the second (exit 1) and the chmod it names works",
        arguments: ["config", "config/pingcli/profiles/default", "data/pingcli", "data/pingcli/generations"])
    func judgedAgain(directory: String) throws {
        let harness = try loggedIn(lifetime: 3600)
        let issued = try #require(harness.emulator.issuedAccessTokens.last)
        let first = harness.run(["token", "--raw"])
        #expect(first.status == 0 && first.stdout == harness.emulator.newestTokenLine, "\(first)")
        let path = harness.root + "/" + directory
        var info = stat()
        #expect(stat(path, &info) == 0)
        chmod(path, 0o775)
        let refused = harness.run(["token", "--raw"])
        expectOneLineError(
            refused, status: 1, rule: .fileModeRefused, contains: ["refusing to use \(path)", "chmod go-w \(path)"], secrets: [issued])
        chmod(path, info.st_mode & 0o7777)
        let again = harness.run(["token", "--raw"])
        #expect(again.status == 0 && again.stdout == harness.emulator.newestTokenLine, "\(again)")
    }
}
