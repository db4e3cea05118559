import PingBase

#if canImport(Glibc)
    import Glibc
#endif

/// OpenSSH's secure path rule for the directories above a file, and the directories already judged by it
/// during one group of reads (`beginSharedPathChecks`).
extension FileSystem {
    /// OpenSSH's secure path rule for the directories above a file: each, up to the root, belongs to
    /// this user or root and is not writable by group or others (who could replace the file), except a
    /// root-owned sticky directory such as /tmp. A directory others may only read or list is fine.
    /// A file named relative to the current directory (`--client-key-file key.pem`) is in ".".
    ///
    /// The rule is judged on the directory's real path (`realpath`, then `stat` of each directory up to
    /// the root). An absolute path without `.`, `..` or empty components whose directories are none of
    /// them symbolic links is its own real path: its directories are judged by one `lstat` each, and any
    /// other case, or any directory that fails a test, is judged again the long way, which says why. Inside
    /// `beginSharedPathChecks`, a directory judged once (with all those above it) is not judged again.
    package static func requireSafePath(_ path: String) throws(FileFailure) {
        if judgedAsWritten(path) { return }
        let directory = directoryToJudge(path)
        guard let resolved = realpath(directory, nil) else {
            throw .io(.judgeDirectory, path: directory, errno: errno)
        }
        var current = String(cString: resolved)
        free(resolved)
        let deepest = current
        while true {
            if SharedPathChecks.current?.contains(current) == true { break }
            var info = stat()
            guard stat(current, &info) == 0 else { throw .io(.judgeDirectory, path: current, errno: errno) }
            guard info.st_uid == effectiveUser || info.st_uid == 0 else {
                throw .directoryNotOwned(path: path, directory: current, uid: info.st_uid)
            }
            if !(info.st_uid == 0 && info.st_mode & S_ISVTX != 0) { try requireUnwritableByOthers(current, info) }
            if current == "/" { break }
            current = parent(of: current)
            if current.isEmpty { current = "/" }
        }
        SharedPathChecks.current?.add(deepest)
    }

    /// The directory `requireSafePath` judges for `path`: its parent, "/" for a file in the root, "." for a
    /// bare file name.
    package static func directoryToJudge(_ path: String) -> String {
        // In ASCII a "/" byte is a "/" Character; beyond it, the Characters decide, as they always did.
        guard path.utf8.allSatisfy({ $0 < 0x80 }) else {
            return path.contains(Character("/")) ? (path.hasPrefix("/") && parent(of: path).isEmpty ? "/" : parent(of: path)) : "."
        }
        guard path.utf8.contains(UInt8(ascii: "/")) else { return "." }
        let directory = parent(of: path)
        return directory.isEmpty ? "/" : directory
    }

    /// Whether the directory of `path` passes the rule as it is written: an ASCII, absolute path whose
    /// directory has no `.`, `..` or empty component, each directory up to the root (or up to one already
    /// judged in this group of reads) found by `lstat` to be a directory, not a symbolic link, that passes
    /// the owner and mode tests. false means "judge it the long way", not "refused". Done on one copy of
    /// the path's bytes: each parent is cut off by a NUL written over its "/", so no string is made per
    /// directory.
    private static func judgedAsWritten(_ path: String) -> Bool {
        var bytes = Array(path.utf8)
        let shared = SharedPathChecks.current
        return bytes.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress, buffer[0] == UInt8(ascii: "/"), ByteScan.allASCII(UnsafeBufferPointer(buffer)) else {
                return false
            }
            // In ASCII a "/" byte is a "/" Character: the directory is what `directoryToJudge` gives.
            var length = buffer.count - 1
            while buffer[length] != UInt8(ascii: "/") { length -= 1 }
            length = max(length, 1)  // "/key": the directory is "/"
            guard length < buffer.count, isPlainAbsolutePath(UnsafeBufferPointer(rebasing: buffer[..<length])) else { return false }
            let deepest = Array(buffer[..<length])
            buffer[length] = 0
            let name = UnsafeMutableRawPointer(base).assumingMemoryBound(to: CChar.self)
            while true {
                if let shared, shared.contains(UnsafeBufferPointer(rebasing: buffer[..<length])) { break }
                var info = stat()
                guard lstat(name, &info) == 0, passesDirectoryRule(info) else { return false }
                if length == 1 { break }  // "/"
                var slash = length - 1
                while buffer[slash] != UInt8(ascii: "/") { slash -= 1 }
                length = max(slash, 1)  // "/a": its parent is "/"
                buffer[length] = 0
            }
            shared?.add(deepest)
            return true
        }
    }

    /// Whether `lstat`'s answer for one directory passes the rule: a directory (not a link to one) of
    /// this user's or root's that group and others may not write, or a root-owned sticky one like /tmp.
    /// (`requireSafePath`'s long way words each refusal.)
    package static func passesDirectoryRule(_ info: stat) -> Bool {
        guard info.st_mode & S_IFMT == S_IFDIR, info.st_uid == effectiveUser || info.st_uid == 0 else { return false }
        return (info.st_uid == 0 && info.st_mode & S_ISVTX != 0) || info.st_mode & 0o022 == 0
    }

    /// "/" or "/a/b" with no empty, `.` or `..` component and no trailing slash.
    package static func isPlainAbsolutePath(_ path: String) -> Bool {
        Array(path.utf8).withUnsafeBufferPointer { isPlainAbsolutePath($0) }
    }

    package static func isPlainAbsolutePath(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.first == UInt8(ascii: "/") else { return false }
        if bytes.count == 1 { return true }
        var componentLength = 0
        var dots = 0
        for byte in bytes.dropFirst() {
            if byte == UInt8(ascii: "/") {
                guard componentLength > 0, dots != componentLength || dots > 2 else { return false }
                componentLength = 0
                dots = 0
            } else {
                componentLength += 1
                if byte == UInt8(ascii: ".") { dots += 1 }
            }
        }
        return componentLength > 0 && (dots != componentLength || dots > 2)
    }

    /// Starts a group of reads (the profile, its cache, the key and the generation record of one
    /// `token`) in which `requireSafePath` judges each directory once, on this thread. Returns whether this
    /// call started the group (false: one is open already); pass it to `endSharedPathChecks`. A group
    /// spans reads made one after the other (a key command may run between two of them), never the wait
    /// for a lock or the network: a directory judged at its start stays judged only for those reads, and
    /// the next command, or the next read of an in-process test, judges it again.
    public static func beginSharedPathChecks() -> Bool {
        guard SharedPathChecks.current == nil else { return false }
        pthread_setspecific(SharedPathChecks.key, Unmanaged.passRetained(SharedPathChecks()).toOpaque())
        return true
    }

    /// Ends the group `beginSharedPathChecks` started (when `began`): every later read judges its path again.
    public static func endSharedPathChecks(_ began: Bool) {
        guard began, let pointer = pthread_getspecific(SharedPathChecks.key) else { return }
        pthread_setspecific(SharedPathChecks.key, nil)
        Unmanaged<SharedPathChecks>.fromOpaque(pointer).release()
    }
}

/// The directories judged safe in this thread's open group of reads. A directory is judged with all
/// those above it, so only the deepest of each walk is kept: a directory is judged when it is one of
/// them or above one (a prefix of it that ends where a component does). Only the newest few are
/// searched, and one found further back is added again as the newest: a group that spans many profiles
/// (`status --all` on one thread) asks about the same few directories over and over, and a search of all
/// of them grew with every profile read. One forgotten is judged again (by `lstat`), never taken as judged.
package final class SharedPathChecks {
    /// The deepest directories, each followed by a NUL, oldest first.
    private var judged: [UInt8] = []
    /// Where each of them starts in `judged`.
    private var starts: [Int] = []
    /// How many of the newest are searched, and how many are kept before the older ones are dropped.
    package static let searched = 16
    package static let kept = 256

    /// The thread's open group, or nil.
    package static var current: SharedPathChecks? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<SharedPathChecks>.fromOpaque(pointer).takeUnretainedValue()
    }

    package static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed")
        return key
    }()

    package func contains(_ directory: String) -> Bool {
        Array(directory.utf8).withUnsafeBufferPointer { contains($0) }
    }

    /// Whether `directory` (its bytes, absolute, without a NUL) is a judged directory or above one.
    package func contains(_ directory: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !directory.isEmpty else { return false }
        var found = -1
        judged.withUnsafeBufferPointer { all in
            var end = all.count - 1  // the NUL after the newest
            for entry in starts.indices.reversed().prefix(Self.searched) {
                let start = starts[entry]
                let length = end - start
                if length >= directory.count
                    && memcmp(all.baseAddress! + start, directory.baseAddress!, directory.count) == 0
                    && (length == directory.count || directory.count == 1 || all[start + directory.count] == UInt8(ascii: "/"))
                {
                    found = entry
                    return
                }
                end = start - 1
            }
        }
        guard found >= 0 else { return false }
        if found < starts.count - 1 {
            let start = starts[found]
            let end = found + 1 < starts.count ? starts[found + 1] - 1 : judged.count - 1
            add(Array(judged[start..<end]))
        }
        return true
    }

    package func add(_ directory: String) { add(Array(directory.utf8)) }

    package func add(_ directory: [UInt8]) {
        if starts.count >= Self.kept {
            let first = starts[starts.count - Self.searched]
            judged.removeFirst(first)
            starts = starts.suffix(Self.searched).map { $0 - first }
        }
        starts.append(judged.count)
        judged.append(contentsOf: directory)
        judged.append(0)
    }
}
