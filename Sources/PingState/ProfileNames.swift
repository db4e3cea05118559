import PingPlatform

#if canImport(Glibc)
    import Glibc
#endif

extension TokenStore {
    /// Every profile with a profile file, sorted by name. `readdir` and `stat` rather than FileManager:
    /// `status --all` and `profiles` with a thousand profiles (docs/performance.md).
    package func profileNames() -> [ProfileName] {
        guard let directory = opendir(paths.profilesDirectory) else { return [] }
        defer { closedir(directory) }
        var entries: [String] = []
        while let entry = readdir(directory) {
            entries.append(withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
        }
        var info = stat()
        return entries.sorted().compactMap { entry in
            guard let name = try? ProfileName(entry), stat(paths.profileFile(name), &info) == 0 else { return nil }
            return name
        }
    }
}
