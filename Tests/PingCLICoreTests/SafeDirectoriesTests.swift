import Foundation
import Testing

@testable import PingPlatform

/// `FileSystem.requireSafePath` with and without a group of reads that judges each directory once (`status --all`: one per thread).
@Suite("safe directories remembered by one command")
struct SafeDirectoriesTests {
    /// Why `requireSafePath` refuses `path`, or nil when it passes.
    func refused(_ path: String) -> String? {
        do {
            try FileSystem.requireSafePath(path)
            return nil
        } catch {
            return error.message
        }
    }

    @Test(
        "safe-directories-once: within one group of reads a directory judged safe is not walked again, a sibling group or others may write is still refused (also behind a symbolic link), and the next command judges afresh"
    )
    func rememberedForOneCommand() throws {
        let root = makeTemporaryDirectory("safe-directories")
        defer { try? FileManager.default.removeItem(atPath: root) }
        for name in ["a", "b", "w"] { #expect(mkdir(root + "/" + name, 0o700) == 0) }
        #expect(chmod(root + "/w", 0o777) == 0)
        #expect(symlink(root + "/w", root + "/l") == 0)
        do {
            let began = FileSystem.beginSharedPathChecks()
            defer { FileSystem.endSharedPathChecks(began) }
            #expect(refused(root + "/a/profile.json") == nil)
            #expect(refused(root + "/b/profile.json") == nil, "judged by itself: its parent is known")
            #expect(refused(root + "/w/profile.json")?.contains("group or others may write the directory (mode 777)") == true)
            #expect(refused(root + "/l/profile.json")?.contains("group or others may write the directory (mode 777)") == true)
            #expect(chmod(root + "/a", 0o777) == 0)
            #expect(refused(root + "/a/tokens.enc") == nil, "judged once for the group")
        }
        #expect(refused(root + "/a/profile.json")?.contains("mode 777") == true, "after the group, a read walks again")
        #expect(refused(root + "/b/profile.json") == nil)
    }

    @Test(
        "safe-directories-many: one group over many directories (status --all on one thread) still refuses what it must; a directory searched past is judged again, never taken as judged"
    )
    func manyDirectoriesInOneGroup() throws {
        let root = makeTemporaryDirectory("safe-directories")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let names = (0..<300).map { "p\($0)" }
        for name in names { #expect(mkdir(root + "/" + name, 0o700) == 0) }
        #expect(chmod(root + "/p150", 0o770) == 0)
        let began = FileSystem.beginSharedPathChecks()
        defer { FileSystem.endSharedPathChecks(began) }
        for name in names {
            let message = refused(root + "/" + name + "/profile.json")
            #expect((message == nil) == (name != "p150"), "\(name): \(message ?? "accepted")")
            #expect(refused(root + "/" + name + "/tokens.enc") == message)
        }
        // p0 was judged first and many directories since: it is judged again, and now refused.
        #expect(chmod(root + "/p0", 0o777) == 0)
        #expect(refused(root + "/p0/profile.json")?.contains("mode 777") == true)
        // The newest stays judged for the group, as in any group.
        #expect(chmod(root + "/p299", 0o777) == 0)
        #expect(refused(root + "/p299/profile.json") == nil)
    }

    @Test("file-parent: the directory part of a path, by bytes (non-ASCII names too), empty for a name without one")
    func parent() {
        #expect(FileSystem.parent(of: "/a/b/c") == "/a/b")
        #expect(FileSystem.parent(of: "/é/ß/profile.json") == "/é/ß")
        #expect(FileSystem.parent(of: "/a") == "")
        #expect(FileSystem.parent(of: "key.pem") == "")
        #expect(FileSystem.parent(of: "dir/key.pem") == "dir")
    }
}
