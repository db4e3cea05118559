#if canImport(Glibc)
    import Glibc
#endif

/// The Windows browser from Windows Subsystem for Linux, where `xdg-open` is usually missing or opens
/// nothing: `wslview` (wslu), else `explorer.exe`, else `cmd.exe /c start`. The browser reaches the
/// loopback redirect through WSL's localhost forwarding (on by default).
public enum WindowsBrowser {
    /// WSL's kernels name themselves: `5.15.90.1-microsoft-standard-WSL2`, or `…-Microsoft` on WSL 1.
    /// `read` gives a file's text (the /proc files in the binary; anything in a test).
    public static func isWSL(read: (String) -> String? = readProcFile) -> Bool {
        ["/proc/sys/kernel/osrelease", "/proc/version"].contains { path in
            guard let text = read(path)?.lowercased() else { return false }
            return text.contains("microsoft") || text.contains("wsl")
        }
    }

    /// The first launcher found on `path` (a PATH value), and whether its exit status means anything.
    package static func command(path: String) -> (words: [String], statusMeaningful: Bool)? {
        if let wslview = find("wslview", path: path) { return ([wslview], true) }
        if let explorer = find("explorer.exe", path: path) { return ([explorer], false) }
        // `start` takes a first quoted argument for the window title: an empty one, so the URL is never taken for it.
        if let cmd = find("cmd.exe", path: path) { return ([cmd, "/c", "start", ""], true) }
        return nil
    }

    package static func isCmd(_ executable: String) -> Bool { executable.hasSuffix("/cmd.exe") || executable == "cmd.exe" }

    /// The URL for cmd's command line: its metacharacters (`^ & | < > ( )`) each escaped with `^`, so
    /// `&state=…` stays part of the URL instead of starting a second command. A URL past the gate holds
    /// no space, quote or control character.
    package static func cmdEscaped(_ url: String) -> String {
        var escaped = ""
        for character in url {
            if "^&|<>()".contains(character) { escaped.append("^") }
            escaped.append(character)
        }
        return escaped
    }

    /// An executable file named `name` in one of `path`'s directories.
    package static func find(_ name: String, path: String) -> String? {
        for directory in path.split(separator: ":") where directory.hasPrefix("/") {
            let candidate = "\(directory)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// A small /proc file's text, or nil.
    public static func readProcFile(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = read(descriptor, &buffer, buffer.count)
        return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : nil
    }
}
