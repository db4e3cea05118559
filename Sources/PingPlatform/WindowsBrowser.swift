#if canImport(Glibc)
    import Glibc
#endif

/// The Windows browser from Windows Subsystem for Linux, where `xdg-open` is usually missing or opens
/// nothing: `wslview` (wslu), else `explorer.exe`, else `rundll32.exe url.dll,FileProtocolHandler`. None
/// of them is a command interpreter: `cmd.exe` is never used, because cmd expands `%NAME%` in its
/// command line before anything else and has no escape for `%` there, and a URL is full of `%`. The
/// browser reaches the loopback redirect through WSL's localhost forwarding (on by default).
public enum WindowsBrowser {
    /// WSL's kernels name themselves: `5.15.90.1-microsoft-standard-WSL2`, or `…-Microsoft` on WSL 1.
    /// `read` gives a file's text (the /proc files in the binary; anything in a test).
    public static func isWSL(read: (String) -> String? = readProcFile) -> Bool {
        ["/proc/sys/kernel/osrelease", "/proc/version"].contains { path in
            guard let text = read(path)?.lowercased() else { return false }
            return text.containsText("microsoft") || text.containsText("wsl")
        }
    }

    /// The first launcher found on `path` (a PATH value), and whether its exit status means anything.
    /// Each gets the URL as one argument, passed on to Windows unchanged.
    package static func command(path: String) -> (words: [String], statusMeaningful: Bool)? {
        if let wslview = find("wslview", path: path) { return ([wslview], true) }
        if let explorer = find("explorer.exe", path: path) { return ([explorer], false) }
        if let rundll = find("rundll32.exe", path: path) { return ([rundll, "url.dll,FileProtocolHandler"], false) }
        return nil
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
