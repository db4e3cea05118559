import Testing

@testable import PingBase
@testable import PingPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// The cheaper forms of the path walk, `parent(of:)` and `trimmingWhitespace` decide exactly as the forms
/// they stand in for, and a directory judged once is judged again once its group of reads has ended.
@Suite("safe path: the walk judged once per group of reads, byte forms agree with the Character forms")
struct SafePathTests {
    /// A private directory under /tmp (root's sticky directory), removed by the caller.
    func privateDirectory() -> String {
        return makeTemporaryDirectory("path")
    }

    /// A private directory holding `directories` (mode 0700, parents first) and the secret files `secrets`.
    func privateTree(directories: [String], secrets: [String]) -> String {
        let root = privateDirectory()
        for directory in directories { #expect(mkdir(root + "/" + directory, 0o700) == 0) }
        for file in secrets { writeSecret(root + "/" + file) }
        return root
    }

    /// Removes what a test made under `root`: its files, then its directories, deepest first.
    func remove(_ root: String, files: [String], directories: [String]) {
        for file in files { unlink(root + "/" + file) }
        for directory in directories + [""] { rmdir(root + "/" + directory) }
    }

    func writeSecret(_ path: String, mode: mode_t = 0o600) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode)
        _ = Glibc.write(descriptor, "secret", 6)
        close(descriptor)
        chmod(path, mode)
    }

    func refusal(_ path: String) -> String? {
        do {
            _ = try FileSystem.read(path, protection: .secret)
            return nil
        } catch {
            return error.message
        }
    }

    @Test("safe-path-shared: inside a group a judged directory is not walked again; once the group ends, a chmod is seen")
    func sharedGroup() throws {
        let root = privateTree(directories: ["a", "a/b"], secrets: ["a/b/key", "a/b/generation"])
        defer { remove(root, files: ["a/b/key", "a/b/generation"], directories: ["a/b", "a"]) }
        let began = FileSystem.beginSharedPathChecks()
        #expect(began)
        #expect(FileSystem.beginSharedPathChecks() == false, "a group inside a group shares it")
        #expect(refusal(root + "/a/b/key") == nil)
        chmod(root + "/a", 0o777)
        // Judged already in this group: the next read does not walk it again.
        #expect(refusal(root + "/a/b/generation") == nil)
        FileSystem.endSharedPathChecks(began)
        let message = try #require(refusal(root + "/a/b/generation"), "the group ended, so the directory is judged again")
        #expect(message.contains("refusing to use \(root)/a:") && message.contains("chmod go-w \(root)/a"), "\(message)")
        chmod(root + "/a", 0o700)
        #expect(refusal(root + "/a/b/generation") == nil)
    }

    @Test("safe-path-shared-new: a directory first met inside a group is judged, and refused when others may write it")
    func newDirectoryInGroup() throws {
        let root = privateTree(directories: ["a", "c"], secrets: ["a/key", "c/generation"])
        defer { remove(root, files: ["a/key", "c/generation"], directories: ["a", "c"]) }
        chmod(root + "/c", 0o770)
        let began = FileSystem.beginSharedPathChecks()
        defer { FileSystem.endSharedPathChecks(began) }
        #expect(refusal(root + "/a/key") == nil)
        let message = try #require(refusal(root + "/c/generation"))
        #expect(message.contains("group or others may write the directory (mode 770)") && message.contains("chmod go-w \(root)/c"))
    }

    @Test("safe-path-symlink: a directory reached through a symbolic link is judged by its target, inside a group or not")
    func symbolicLink() throws {
        let root = privateDirectory()
        defer { remove(root, files: ["real/key", "link"], directories: ["real"]) }
        #expect(mkdir(root + "/real", 0o700) == 0)
        #expect(symlink(root + "/real", root + "/link") == 0)
        writeSecret(root + "/real/key")
        #expect(refusal(root + "/link/key") == nil)
        chmod(root + "/real", 0o777)
        for grouped in [false, true] {
            let began = grouped && FileSystem.beginSharedPathChecks()
            let message = try #require(refusal(root + "/link/key"))
            FileSystem.endSharedPathChecks(began)
            #expect(message.contains("refusing to use \(root)/real:") && message.contains("chmod go-w \(root)/real"), "\(message)")
        }
    }

    @Test("safe-path-plain: which paths are their own real path as written (else realpath decides)")
    func plainAbsolutePaths() {
        for plain in ["/", "/a", "/a/b", "/tmp/x.y", "/a/.../b", "/a/.b", "/a/b.."] {
            #expect(FileSystem.isPlainAbsolutePath(plain), "\(plain)")
        }
        for other in ["", "a", "a/b", ".", "./a", "//", "/a/", "/a//b", "/a/./b", "/a/../b", "/.", "/..", "/a/.", "/a/.."] {
            #expect(!FileSystem.isPlainAbsolutePath(other), "\(other)")
        }
        #expect(FileSystem.directoryToJudge("key.pem") == ".")
        #expect(FileSystem.directoryToJudge("/key") == "/")
        #expect(FileSystem.directoryToJudge("/a/b/key") == "/a/b")
        #expect(FileSystem.directoryToJudge("a/key") == "a")
        // What the walk judged before the byte forms (its `contains("/")` is the Character one in
        // PingPlatform): the same directory for every path.
        func characters(_ path: String) -> String {
            path.contains(Character("/"))
                ? (path.hasPrefix("/") && FileSystem.parent(of: path).isEmpty ? "/" : FileSystem.parent(of: path)) : "."
        }
        for path in ["key", "/key", "/a/b/key", "a/key", "é/key", "/é", "a/\u{301}key", "/\u{301}k", "\u{600}/k", "/a/b\u{200D}/k"] {
            #expect(FileSystem.directoryToJudge(path) == characters(path), "\(path.unicodeScalars.map(\.value))")
        }
    }

    @Test("parent-of: the byte search answers what the Character search answers, combining marks and all")
    func parentOf() {
        func characters(_ path: String) -> String { String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) }
        let paths = [
            "", "/", "a", "/a", "a/", "/a/b/c", "//", "/a//b", "é/ü", "/é/", "/a/\u{301}b", "/a\u{301}/b", "/x/\u{301}",
            "\u{600}/a", "/a/\u{600}/b", "/a/b\u{200D}/c", "/a/\u{200D}", "/\u{1F600}/\u{1F3FB}", "/a\r/\nb",
        ]
        for path in paths { #expect(FileSystem.parent(of: path) == characters(path), "\(path.unicodeScalars.map(\.value))") }
    }

    @Test("trim-whitespace: the byte form trims what the scalar walk trims")
    func trimming() {
        func scalars(_ text: Substring) -> String {
            let scalars = text.unicodeScalars
            guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
                let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
            else { return "" }
            return String(String.UnicodeScalarView(scalars[first...last]))
        }
        let texts = [
            "", " ", "\n", "42\n", " 42 ", "\t\r\n\u{0B}\u{0C} x \u{0B}", "\u{1C}x\u{1F}", "\u{A0}x", "x\u{A0}", "\u{85}x\u{2028}",
            " é ", "\u{3000}全角\u{3000}", " a b ", "\u{A0}", " \u{A0} ", "x\u{301} ", " \u{301}x", "a\u{200B}",
        ]
        for text in texts {
            #expect(text.trimmingWhitespace == scalars(text[...]), "\(text.unicodeScalars.map(\.value))")
            let padded = "[" + text + "]"
            let inner = padded.dropFirst().dropLast()
            #expect(inner.trimmingWhitespace == scalars(inner), "\(text.unicodeScalars.map(\.value))")
        }
        // Every single ASCII byte, alone and between letters.
        for value in 0..<128 {
            let text = String(UnicodeScalar(UInt8(value)))
            for candidate in [text, "a" + text, text + "a", "a" + text + "a"] {
                #expect(candidate.trimmingWhitespace == scalars(candidate[...]), "\(value)")
            }
        }
    }
}

@Suite("file read: straight into the returned bytes, bounded by the limit")
struct BoundedReadTests {
    @Test("file-read-bounded: files of every size up to the limit read whole; one byte over it is refused, file-too-large")
    func sizes() throws {
        let root = makeTemporaryDirectory("read")
        defer { rmdir(root) }
        let path = root + "/file"
        defer { unlink(path) }
        for (size, limit) in [
            (0, 64), (1, 64), (63, 64), (64, 64), (65, 64), (16_383, 1 << 20), (16_385, 1 << 20), (70_000, 1 << 20), (70_000, 40_000),
        ] {
            let content = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            _ = content.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
            if size <= limit {
                #expect(try FileSystem.read(path, limit: limit, protection: .secret) == content, "\(size)")
            } else {
                #expect(throws: FileFailure.self, "\(size) over \(limit)") {
                    _ = try FileSystem.read(path, limit: limit, protection: .secret)
                }
                do {
                    _ = try FileSystem.read(path, limit: limit, protection: .secret)
                } catch {
                    #expect(error.rule == .fileTooLarge && error.message.contains("larger than \(limit) bytes"), "\(error)")
                }
            }
        }
    }
}
