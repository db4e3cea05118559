#if canImport(Glibc)
    import Glibc
#endif

/// Where the 32-byte key that encrypts token caches comes from.
///
/// By default a random key file, 0600, under the XDG data directory, created on first login. With
/// `PINGCLI_KEY_COMMAND`, a command prints the key (from `secret-tool`, `pass`, a hardware token…), so
/// nothing on disk decrypts the cache by itself.
public enum KeySource: Sendable {
    case file(path: String)
    case command(String)

    /// The key file, or the key command when one is set.
    public init(keyFile: String, environment: [String: String]) {
        if let command = environment["PINGCLI_KEY_COMMAND"], !command.trimmingWhitespace.isEmpty {
            self = .command(command)
        } else {
            self = .file(path: keyFile)
        }
    }

    /// Reads the key; with a key file, creates it first when `create` is true and it does not exist.
    public func load(create: Bool) throws(PingCLIError) -> [UInt8] {
        switch self {
        case .file(let path): try Self.loadFile(path, create: create)
        case .command(let command): try Self.run(command)
        }
    }

    private static func loadFile(_ path: String, create: Bool) throws(PingCLIError) -> [UInt8] {
        if let key = try FileSystem.read(path, limit: 4096, secret: true) {
            guard key.count == Sodium.aeadKeyLength else {
                throw .loginRequired(
                    "key file \(path) is damaged (\(key.count) bytes, expected \(Sodium.aeadKeyLength)): remove it and run pingcli login again"
                )
            }
            return key
        }
        guard create else {
            throw .loginRequired("key file \(path) is missing, so the cached tokens cannot be read: run pingcli login")
        }
        try FileSystem.ensurePrivateDirectory(FileSystem.parent(of: path))
        let fresh = Sodium.randomBytes(Sodium.aeadKeyLength)
        // Two first logins at once: exactly one key wins, and both use it.
        if try FileSystem.createExclusively(path, fresh) { return fresh }
        return try loadFile(path, create: false)
    }

    /// Runs the key command with `/bin/sh -c`, stdin from /dev/null, its stderr passed through (for
    /// prompts), and decodes what it prints.
    private static func run(_ command: String) throws(PingCLIError) -> [UInt8] {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw .failure("cannot run PINGCLI_KEY_COMMAND: \(FileSystem.errnoText())") }
        _ = fcntl(pipeEnds[0], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
        let arguments = ["/bin/sh", "-c", command]
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, nil, argv, environ)
        close(pipeEnds[1])
        guard spawned == 0 else {
            close(pipeEnds[0])
            throw .failure("cannot run PINGCLI_KEY_COMMAND: \(String(cString: strerror(spawned)))")
        }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1024)
        while output.count <= 4096 {
            let count = read(pipeEnds[0], &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            output.append(contentsOf: chunk[..<count])
        }
        close(pipeEnds[0])
        Sodium.wipe(&chunk)
        defer { Sodium.wipe(&output) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else {
            let code = status & 0x7F == 0 ? "exit status \((status >> 8) & 0xFF)" : "signal \(status & 0x7F)"
            throw .failure("PINGCLI_KEY_COMMAND failed (\(code)): run it by hand to see why; it must print the 32-byte key")
        }
        guard let key = decodeKey(output) else {
            throw .failure(
                "PINGCLI_KEY_COMMAND printed \(output.count) bytes, not a 32-byte key: it must print 32 raw bytes, 64 hex digits or base64 (for example from: openssl rand -base64 32)"
            )
        }
        return key
    }

    /// Accepts exactly 32 raw bytes, or (surrounding whitespace ignored) 64 hex digits or the base64 or
    /// base64url text of 32 bytes.
    static func decodeKey(_ output: [UInt8]) -> [UInt8]? {
        if output.count == Sodium.aeadKeyLength { return output }
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        guard let first = output.firstIndex(where: { !isSpace($0) }), let last = output.lastIndex(where: { !isSpace($0) })
        else { return nil }
        let text = Array(output[first...last])
        if text.count == 64, let bytes = hexDecode(text) { return bytes }
        var base64 = text
        while base64.last == UInt8(ascii: "=") { base64.removeLast() }
        let urlSafe = base64.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: "-") : $0 == UInt8(ascii: "/") ? UInt8(ascii: "_") : $0 }
        if let bytes = Base64URL.decode(String(decoding: urlSafe, as: UTF8.self)), bytes.count == Sodium.aeadKeyLength {
            return bytes
        }
        return nil
    }

    private static func hexDecode(_ text: [UInt8]) -> [UInt8]? {
        func nibble(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        var index = 0
        while index < text.count {
            guard let high = nibble(text[index]), let low = nibble(text[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}
