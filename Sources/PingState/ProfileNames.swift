import PingPlatform

#if canImport(Glibc)
    import Glibc
#endif

extension TokenStore {
    /// Every profile with a profile file, sorted by name. `readdir` and `stat` rather than FileManager:
    /// `status --all` and `profiles` with a thousand profiles (docs/performance.md). `requireSettings`
    /// false: every directory (or link, or entry of unknown type) with a profile's name, without a `stat`
    /// of each; the caller looks at its `profile.json` anyway and leaves out those without one.
    package func profileNames(requireSettings: Bool = true) -> [ProfileName] {
        guard let directory = opendir(paths.profilesDirectory) else { return [] }
        defer { closedir(directory) }
        var entries: [String] = []
        while let entry = readdir(directory) {
            let type = entry.pointee.d_type
            guard requireSettings || type == UInt8(DT_DIR) || type == UInt8(DT_LNK) || type == UInt8(DT_UNKNOWN) else { continue }
            entries.append(withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
        }
        var info = stat()
        return entries.sorted().compactMap { entry in
            guard let name = try? ProfileName(entry), !requireSettings || stat(paths.profileFile(name), &info) == 0 else { return nil }
            return name
        }
    }
}
