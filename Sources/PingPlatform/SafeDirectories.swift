#if canImport(Glibc)
    import Glibc
#endif

/// The directories `FileSystem.requireSafePath` found safe during one command that reads many files in
/// few directories (`status --all`, `profiles`: three files of each of a thousand profiles), so that each
/// is judged once rather than once per file with a walk up to /. Only where a command asks for it
/// (`remembering`), on the threads that run its body, and for as long: another
/// command in the same process (the in-process tests) judges every path afresh.
package final class SafeDirectories: @unchecked Sendable {
    private var known: Set<String> = []
    private let lock: UnsafeMutablePointer<pthread_mutex_t>

    package init() {
        lock = .allocate(capacity: 1)
        pthread_mutex_init(lock, nil)
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    /// The one this thread is in, if any.
    static var current: SafeDirectories? {
        pthread_getspecific(threadKey).map { Unmanaged<SafeDirectories>.fromOpaque($0).takeUnretainedValue() }
    }

    private static let threadKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Runs `body` on this thread with `self` remembering what it finds safe.
    package func remembering<Result>(_ body: () -> Result) -> Result {
        let previous = pthread_getspecific(Self.threadKey)
        pthread_setspecific(Self.threadKey, Unmanaged.passUnretained(self).toOpaque())
        defer { pthread_setspecific(Self.threadKey, previous) }
        return withExtendedLifetime(self) { body() }
    }

    func insert(_ directories: [String]) {
        pthread_mutex_lock(lock)
        known.formUnion(directories)
        pthread_mutex_unlock(lock)
    }

    func knows(_ directory: String) -> Bool {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return known.contains(directory)
    }

    /// Whether `directory` is known safe: found so before, or an absolute path's last component, in a
    /// directory found so, that is itself a directory (`lstat`: not a symbolic link) of this user or
    /// root that group and others cannot write (or a root-owned sticky one), as the walk would judge it.
    /// false sends the caller on the whole walk, which also words any refusal.
    func judged(_ directory: String) -> Bool {
        if knows(directory) { return true }
        let parent = FileSystem.parent(of: directory)
        let name = directory.utf8.dropFirst(parent.utf8.count + 1)
        guard directory.hasPrefix("/"), !parent.isEmpty, !name.isEmpty, !name.elementsEqual(".".utf8), !name.elementsEqual("..".utf8),
            knows(parent)
        else { return false }
        var info = stat()
        guard lstat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == FileSystem.effectiveUser || info.st_uid == 0,
            (info.st_uid == 0 && info.st_mode & S_ISVTX != 0) || info.st_mode & 0o022 == 0
        else { return false }
        insert([directory])
        return true
    }
}
