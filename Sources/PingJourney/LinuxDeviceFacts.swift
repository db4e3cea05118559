import PingAM

#if canImport(Glibc)
    import Glibc
#endif

/// What a Linux machine says about itself for a journey's device profile: os-release's name and
/// version, and the machine id (only ever hashed, `DeviceProfileAnswer.identifier`).
public enum LinuxDeviceFacts {
    public static func read() -> DeviceProfileAnswer {
        let release = text("/etc/os-release") ?? text("/usr/lib/os-release") ?? ""
        let (name, version) = DeviceProfileAnswer.osRelease(release)
        let machineID = (text("/etc/machine-id") ?? text("/var/lib/dbus/machine-id"))?.trimmingWhitespace
        return DeviceProfileAnswer(osName: name, osVersion: version, machineID: machineID?.isEmpty == false ? machineID : nil)
    }

    /// A small regular system file (root's, often a symbolic link into /usr/lib), read as text.
    private static func text(_ path: String) -> String? {
        systemFile(path, limit: 64 * 1024).map { String(decoding: $0, as: UTF8.self) }
    }

    /// A regular system file of at most `limit` bytes (root's, readable by all: not a secret, not
    /// pingcli's), read whole; nil otherwise.
    package static func systemFile(_ path: String, limit: Int) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size <= limit else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + done, $0.count - done) }
            guard count > 0 else { break }
            done += count
        }
        return Array(bytes[..<done])
    }
}
