import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Every file, directory and symbolic link under a sandbox's HOME, XDG directories and `elsewhere` (a
/// directory a test links to), with its mode, owner and contents: taken before a run, compared after it, and
/// put back between the run through the front and the run of the full binary.
struct TreeSnapshot: Equatable, Sendable {
    enum Kind: Equatable, Sendable {
        case directory
        case file([UInt8])
        case link(String)
    }

    struct Entry: Equatable, Sendable {
        var kind: Kind
        var mode: mode_t
        var owner: uid_t
        var group: gid_t
    }

    static let roots = ["home", "config", "data", "state", "elsewhere"]

    /// Relative path (such as `config/pingcli/profiles/default/tokens.enc`) to entry.
    var entries: [String: Entry] = [:]

    init(of root: String) {
        for name in Self.roots { walk(root, name) }
    }

    private mutating func walk(_ root: String, _ relative: String) {
        var info = stat()
        guard lstat(root + "/" + relative, &info) == 0 else { return }
        func entry(_ kind: Kind) -> Entry { Entry(kind: kind, mode: info.st_mode & 0o7777, owner: info.st_uid, group: info.st_gid) }
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            entries[relative] = entry(.directory)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: root + "/" + relative)) ?? []
            for name in names { walk(root, relative + "/" + name) }
        case S_IFLNK:
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: root + "/" + relative)) ?? ""
            entries[relative] = entry(.link(target))
        default:
            entries[relative] = entry(.file(readBytes(root + "/" + relative) ?? []))
        }
    }

    /// Makes the tree under `root` this snapshot again: everything else removed, modes as they were.
    func restore(into root: String) throws {
        for name in Self.roots { try? FileManager.default.removeItem(atPath: root + "/" + name) }
        for path in entries.keys.sorted() {
            let target = root + "/" + path
            switch entries[path]!.kind {
            case .directory: try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
            case .file(let bytes): try writeBytes(target, bytes, mode: entries[path]!.mode)
            case .link(let destination): try FileManager.default.createSymbolicLink(atPath: target, withDestinationPath: destination)
            }
            lchown(target, entries[path]!.owner, entries[path]!.group)
        }
        // Modes last, deepest first: a directory closed to its owner is filled before it is closed.
        for path in entries.keys.sorted().reversed() {
            if case .link = entries[path]!.kind { continue }
            chmod(root + "/" + path, entries[path]!.mode)
        }
    }

    /// What differs from `before`: each path added, removed, or with other contents or mode.
    func changes(from before: TreeSnapshot) -> Set<String> {
        Set(Set(entries.keys).union(before.entries.keys).filter { entries[$0] != before.entries[$0] })
    }
}

/// Writes `bytes` to `path`: an existing file keeps its mode, a new one gets `mode`.
func writeBytes(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o600) throws {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
    guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
    defer { close(descriptor) }
    var written = 0
    while written < bytes.count {
        let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
        written += count
    }
}

/// Gives everything under the sandbox's HOME and XDG directories (and `elsewhere`) to `user`.
func chownTree(_ root: String, to user: uid_t) {
    for path in TreeSnapshot(of: root).entries.keys { lchown(root + "/" + path, user, user) }
}
