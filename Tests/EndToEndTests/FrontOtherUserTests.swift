import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The ownership rules, which root cannot see (every file is root's): the files given to `nobody`, who
/// runs the front and the full binary (`setpriv`), with some of them root's or a third user's.
@Suite(
    "the front: another user's files",
    .enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "needs root and setpriv"))
struct FrontOtherUserTests {
    static let nobody: uid_t = 65534

    static let cases: [FrontCase] = [
        FrontCase("nobody's own files", .answered),
        FrontCase("a directory above of root's, closed to others (as /home is)", .answered) { state in
            chown(state.root + "/config", 0, 0)
            chmod(state.root + "/config", 0o755)
        },
        FrontCase("a directory above of root's, sticky and open to all (as /tmp is)", .answered) { state in
            chown(state.root + "/config", 0, 0)
            chmod(state.root + "/config", 0o1777)
        },
        FrontCase("status.enc of root's (the full binary does not read it for a token)", .fellThrough) { state in
            chown(state.file("status.enc"), 0, 0)
        },
        FrontCase("profile.json of root's, readable by all", .fellThrough, status: 1) { state in
            chown(state.file("profile.json"), 0, 0)
            chmod(state.file("profile.json"), 0o644)
        },
        FrontCase("tokens.enc of root's", .fellThrough, status: 1) { chown($0.file("tokens.enc"), 0, 0) },
        FrontCase("the key file of root's", .fellThrough, status: 1) { chown($0.keyFile, 0, 0) },
        FrontCase("the generation record of root's", .fellThrough, status: 1) { chown($0.generationFile(), 0, 0) },
        FrontCase("current-profile of root's", .fellThrough, status: 1, prints: nil) { state in
            try writeBytes(state.configDirectory + "/current-profile", Array("work\n".utf8))
            chmod(state.configDirectory + "/current-profile", 0o644)
        },
        FrontCase("a directory above of a third user's", .fellThrough, status: 1) { chown($0.root + "/config", 1000, 1000) },
        FrontCase("the profile's directory sticky and open to all, but nobody's (only root's may be)", .fellThrough, status: 1) {
            chmod($0.profileDirectory(), 0o1777)
        },
    ].map { $0.run(by: nobody) }

    @Test("front-other-user: the ownership of files and directories is judged as the full binary judges it", arguments: cases)
    func otherUser(_ testCase: FrontCase) throws {
        try expectSameAsFull(testCase)
    }
}
