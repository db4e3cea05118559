import CFront

/// The full binary's file gates (`FileSystem.read`, `openCheckedSized`, OpenSSH's rule for the directories
/// above a file as `requireSafePath` judges them as written), each answering only "passes" or "do not
/// answer": whatever the full binary would refuse, or judge the long way, makes the front fall through,
/// and the full binary then says what is wrong.
struct FrontFiles {
    enum Protection {
        /// A key, a cache, a generation record: this user's, closed to group and others.
        case secret
        /// `profile.json`, `current-profile`: this user's, not writable by group or others.
        case owned
    }

    enum Read {
        case absent
        case bytes([UInt8])
    }

    let user = front_effective_user()
    /// The deepest directories judged so far: a directory at or above one of them is not judged again.
    private var judged: [[UInt8]] = []

    /// The file's bytes, `.absent` when it does not exist; nil when a gate refuses it or it cannot be read.
    mutating func read(_ path: [UInt8], limit: Int, protection: Protection) -> Read? {
        let descriptor = Self.withCString(path) { front_open($0) }
        guard descriptor >= 0 else { return front_errno() == ENOENT ? .absent : nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & 0o170000 == 0o100000, info.st_uid == user else { return nil }
        switch protection {
        case .secret: guard info.st_mode & 0o077 == 0 else { return nil }
        case .owned: guard info.st_mode & 0o022 == 0 else { return nil }
        }
        let size = Int(info.st_size)
        guard size <= limit, judgeDirectory(of: path) else { return nil }
        var bytes = [UInt8](repeating: 0, count: size + 1)
        var filled = 0
        while filled < bytes.count {
            let requested = bytes.count - filled
            let count = bytes.withUnsafeMutableBufferPointer { systemRead(descriptor, $0.baseAddress! + filled, requested) }
            if count < 0 && front_errno() == EINTR { continue }
            if count < 0 {
                wipe(&bytes)
                return nil
            }
            if count == 0 { break }
            filled += count
            if filled >= size && count < requested { break }
        }
        // Grown past fstat's size while read: the full binary would read on; so does it, from scratch.
        guard filled <= size else {
            wipe(&bytes)
            return nil
        }
        bytes.removeLast(bytes.count - filled)
        return .bytes(bytes)
    }

    /// Whether the file exists in any form (`open` does not fail with ENOENT). Nothing of it is read.
    func isAbsent(_ path: [UInt8]) -> Bool {
        let descriptor = Self.withCString(path) { front_open($0) }
        if descriptor >= 0 {
            close(descriptor)
            return false
        }
        return front_errno() == ENOENT
    }

    /// OpenSSH's rule as `requireSafePath` judges a plain absolute path: each directory up to the root,
    /// by `lstat`, a directory (not a link to one) of this user's or root's that group and others cannot
    /// write, or root's and sticky (/tmp). Anything else is left to the full binary's long way.
    private mutating func judgeDirectory(of path: [UInt8]) -> Bool {
        var length = path.count - 1
        while length > 0 && path[length] != 0x2F { length -= 1 }
        guard path.first == 0x2F, length > 0 else { return false }
        let deepest = Array(path[0..<length])
        guard Self.isPlainAbsolute(deepest) else { return false }
        var current = deepest
        while true {
            if isJudged(current) { break }
            var info = stat()
            guard Self.withCString(current, { lstat($0, &info) }) == 0 else { return false }
            guard info.st_mode & 0o170000 == 0o040000, info.st_uid == user || info.st_uid == 0 else { return false }
            guard (info.st_uid == 0 && info.st_mode & 0o1000 != 0) || info.st_mode & 0o022 == 0 else { return false }
            if current.count == 1 { break }
            var slash = current.count - 1
            while current[slash] != 0x2F { slash -= 1 }
            current = slash == 0 ? [0x2F] : Array(current[0..<slash])
        }
        judged.append(deepest)
        return true
    }

    /// Whether `directory` is one judged already or above one (a prefix ending where a component does).
    private func isJudged(_ directory: [UInt8]) -> Bool {
        for deeper in judged where deeper.count >= directory.count && Array(deeper[0..<directory.count]) == directory {
            if deeper.count == directory.count || directory.count == 1 || deeper[directory.count] == 0x2F { return true }
        }
        return false
    }

    /// "/" or "/a/b": no empty, `.` or `..` component, no trailing slash.
    static func isPlainAbsolute(_ bytes: [UInt8]) -> Bool {
        guard bytes.first == 0x2F else { return false }
        if bytes.count == 1 { return true }
        var component = 0
        var dots = 0
        for byte in bytes.dropFirst() {
            if byte == 0x2F {
                guard component > 0, dots != component || dots > 2 else { return false }
                (component, dots) = (0, 0)
            } else {
                component += 1
                if byte == 0x2E { dots += 1 }
            }
        }
        return component > 0 && (dots != component || dots > 2)
    }

    static func withCString<Result>(_ path: [UInt8], _ body: (UnsafePointer<CChar>) -> Result) -> Result {
        let terminated = path + [0]
        return terminated.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { body($0) }
        }
    }
}

/// `read(2)`, which `FrontFiles.read` hides inside it.
func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int { read(descriptor, buffer, count) }
