import PingBase
import PingCrypto
import PingPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// The lines of `status --all` (and of `profiles`) as one file: for each profile, its status summary
/// (`StatusSummary`) and the fingerprints (`FileFingerprint`: device, inode, size, modification and
/// change times) of the three files that summary was made from: `profile.json`, the token cache and
/// the generation record. While all three still have those fingerprints (found by `fstatat`, with the
/// same gates as a read), they are the bytes the summary was made from, and a table line is the entry's
/// summary: four `stat`s a profile instead of four files opened, read and hashed. A JSON report needs
/// also to know that the refresh record and the narrower tokens are absent: an entry made when they
/// were keeps the fingerprint of the profile's directory, which any name added to it changes.
///
/// Kept in the data directory (`status-index`), sealed under the cache key and bound to the profiles'
/// directory; a derived copy that anything can invalidate: a missing, damaged or foreign index, any
/// fingerprint that differs, a gate that refuses, and that profile is read as without it (its status
/// summary, else its files), then entered again. An entry is made only from fingerprints taken before
/// the read and found the same after it, and only when every file had settled (was last changed a few
/// seconds before the run began: see `FileFingerprint.isSettled`), so a file changed in place within one
/// tick of the file system's clock cannot keep an old entry. The table rewrites the index when an entry
/// was added, went stale or named a profile that is gone; concurrent runs each write a whole index by
/// rename, and the last one stays.
public final class StatusIndex: @unchecked Sendable {
    /// The fingerprints of the three files a line is made from; and the profile's directory when the
    /// refresh record and the narrower tokens were both found absent in it (`.missing`: not known).
    public struct Files: Sendable, Equatable {
        public var profile: FileFingerprint
        public var cache: FileFingerprint
        public var generation: FileFingerprint
        public var directory: FileFingerprint = .missing

        /// The same versions of the three files (whatever is known of the directory).
        func sameFiles(_ other: Files) -> Bool {
            profile == other.profile && cache == other.cache && generation == other.generation
        }
    }

    /// A line vouched for by the index, or the files' fingerprints as found (nil: a file is refused or
    /// `profile.json` is missing), to enter after the profile is read another way.
    public enum Lookup: Sendable {
        case vouched(StatusSummary)
        case unknown(Files?)
    }

    package let store: TokenStore
    private let key: [UInt8]?
    /// The opened index's body, where each profile's entry lies in it, and which entries a lookup
    /// vouched for (one flag each, written without a lock: a profile is looked up on one thread).
    private let body: [UInt8]
    private let entries: [String: (range: Range<Int>, slot: Int)]
    private let vouched: UnsafeMutablePointer<Bool>
    /// The real-time clock when the index was opened, before any file was looked at; and how long before
    /// it a file must have been changed for its fingerprint to be entered.
    private let openedAt: Double
    private let settle: Double
    /// The profiles' directory and the generation records', judged once and held open (nil: refused).
    private let profiles: JudgedDirectory?
    private let generations: JudgedDirectory?
    /// The entries entered in this run, and whether an entry of the opened index went stale.
    private var entered: [String: [UInt8]] = [:]
    private var stale = false
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    /// Opens the store's index (none, or one that does not open under `key`: an empty one). `settle`
    /// and `clock` are for tests: a file changed within `settle` seconds before `clock()` is not entered.
    public init(store: TokenStore, key: CommandKey, settle: Double = 3, clock: () -> Double = FileFingerprint.now) {
        self.store = store
        (openedAt, self.settle) = (clock(), settle)
        self.key = try? key.load()
        profiles = JudgedDirectory(store.paths.profilesDirectory)
        generations = JudgedDirectory(FileSystem.parent(of: store.paths.generationFile(.default)))
        pthread_mutex_init(mutex, nil)
        let opened = self.key.flatMap { secret -> (body: [UInt8], entries: [String: (range: Range<Int>, slot: Int)])? in
            guard var bytes = (try? FileSystem.read(store.paths.statusIndexFile, limit: 64 << 20, protection: .secret)) ?? nil else {
                return nil
            }
            return StatusIndexFile.open(&bytes, key: secret, profiles: store.paths.profilesDirectory)
        }
        (body, entries) = opened ?? ([], [:])
        vouched = .allocate(capacity: max(entries.count, 1))
        vouched.initialize(repeating: false, count: max(entries.count, 1))
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        vouched.deallocate()
    }

    /// Whether the index vouches for the profile's line. Safe on several threads at once.
    /// A line vouched for this way carries no details (`StatusDetails`): a table shows none of them.
    public func lookup(_ name: ProfileName) -> Lookup {
        var files = currentFiles(name).files
        // A table looks for no side files: it knows nothing of them to enter.
        files?.directory = .missing
        return lookup(name, files: files, details: false, entry: entry(name))
    }

    /// `lookup`, and whether the profile has neither a refresh record nor narrower tokens (the two files
    /// a JSON report reads beside the summary's details): false when either is there or is refused. An
    /// entry made when both were absent keeps the profile's directory's fingerprint; while the directory
    /// still has it, no name was added to it since, and the two are not looked for again (four `fstatat`s
    /// a profile, as a table's). Else they are, and an entry whose files are the same gets the directory
    /// as it is now, when both are absent and it has settled.
    public func lookupWithSideFiles(_ name: ProfileName) -> (lookup: Lookup, sideFilesAbsent: Bool) {
        let found = currentFiles(name)
        let entry = entry(name)
        let known = entry?.files.map { !$0.directory.isMissing && $0.directory == found.directory } == true
        let absent = known || (!found.directory.isMissing && sideFilesAbsent(name))
        var files = found.files
        files?.directory = absent ? found.directory : .missing
        let lookup = lookup(name, files: files, details: true, entry: entry)
        if case .vouched = lookup, !known, absent, let entry, let files, files.directory.isSettled(now: openedAt, settle: settle) {
            // The entry again, with the directory as it is now.
            var again: [UInt8] = []
            StatusIndexFile.append(files, to: &again)
            again += body[entry.fields..<entry.range.upperBound]
            locked { entered[name.value] = again }
        }
        return (lookup, absent)
    }

    private func lookup(_ name: ProfileName, files: Files?, details: Bool, entry: Entry?) -> Lookup {
        guard let entry else { return .unknown(files) }
        var reader = RecordReader(body, maximumField: 0, at: entry.fields)
        guard let files, let entered = entry.files, entered.sameFiles(files),
            let summary = StatusSummaryFile.fields(&reader, details: details), reader.position == entry.range.upperBound
        else {
            locked { stale = true }
            return .unknown(files)
        }
        vouched[entry.slot] = true
        return .vouched(summary)
    }

    /// An entry of the opened index: its fingerprints (nil: damaged), where the summary's fields begin,
    /// where it lies in the body and its slot.
    private typealias Entry = (files: Files?, fields: Int, range: Range<Int>, slot: Int)

    private func entry(_ name: ProfileName) -> Entry? {
        guard let (range, slot) = entries[name.value] else { return nil }
        var reader = RecordReader(body, maximumField: 0, at: range.lowerBound)
        let files = StatusIndexFile.files(&reader)
        return (files, reader.position, range, slot)
    }

    /// The fingerprints the opened index holds for `name` (nil: no entry).
    package func enteredFiles(_ name: ProfileName) -> Files? { entry(name)?.files }

    /// Enters `summary`, made from the files that had the fingerprints `files` before they were read,
    /// when they still have them and had settled. Safe on several threads at once.
    /// The directory is entered with them when it had settled and is still as it was (else `.missing`).
    public func enter(_ name: ProfileName, _ summary: StatusSummary, madeFrom files: Files) {
        guard [files.profile, files.cache, files.generation].allSatisfy({ $0.isSettled(now: openedAt, settle: settle) }),
            let now = currentFiles(name).files, now.sameFiles(files)
        else { return }
        var files = files
        if !files.directory.isSettled(now: openedAt, settle: settle) || files.directory != now.directory { files.directory = .missing }
        var entry: [UInt8] = []
        StatusIndexFile.append(files, to: &entry)
        StatusSummaryFile.appendFields(summary, to: &entry)
        locked { entered[name.value] = entry }
    }

    /// Writes the next index when it differs from the one opened: an entry entered or gone stale, or a
    /// profile of the opened one not looked up (removed). Never fails the command: an index not written
    /// only sends the next table to the summaries. A write that fails leaves the index there: it is
    /// only another table's, or an older one, and every entry is checked against the files when read.
    public func save() {
        guard let key else { return }
        var next = locked { entered }
        let kept = entries.filter { vouched[$0.value.slot] && next[$0.key] == nil }
        guard locked({ stale }) || !next.isEmpty || kept.count != entries.count else { return }
        for (name, entry) in kept { next[name] = Array(body[entry.range]) }
        let bytes = StatusIndexFile.seal(next, key: key, profiles: store.paths.profilesDirectory)
        let path = store.paths.statusIndexFile
        // Another table may be writing its own index now: only a writer's leftovers a minute old go, and
        // an index not written leaves the one there (whoever wrote it, its entries vouch for themselves).
        FileSystem.removeTemporaryFiles(of: path, olderThan: 60)
        guard (try? FileSystem.ensurePrivateDirectory(FileSystem.parent(of: path))) != nil else { return }
        try? FileSystem.atomicWrite(path, bytes, durable: false)
    }

    /// The three files' fingerprints now, with the profile's directory's (nil when one is refused or
    /// `profile.json` is missing); and the directory's alone (`.missing` when it is not there or is refused).
    private func currentFiles(_ name: ProfileName) -> (files: Files?, directory: FileFingerprint) {
        let names: [(StaticString, FileSystem.Protection)] = [("profile.json", .owned), ("tokens.enc", .secret)]
        guard let profiles, let generations, let found = profiles.fingerprints(in: name.value, names) else { return (nil, .missing) }
        guard !found.files[0].isMissing, let generation = generations.fingerprint(name.value, protection: .secret) else {
            return (nil, found.directory)
        }
        return (Files(profile: found.files[0], cache: found.files[1], generation: generation, directory: found.directory), found.directory)
    }

    /// Whether the refresh record and the narrower tokens are both absent (false when either is there or
    /// is refused), looked for after the directory was.
    private func sideFilesAbsent(_ name: ProfileName) -> Bool {
        let names: [(StaticString, FileSystem.Protection)] = [("refresh.state", .secret), ("targeted-tokens.enc", .secret)]
        guard let profiles, let found = profiles.fingerprints(inJudged: name.value, names) else { return false }
        return found.allSatisfy(\.isMissing)
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }
}

extension Paths {
    /// The status index (`StatusIndex`), beside the key and the generation records.
    public var statusIndexFile: String { dataDirectory + "/status-index" }
}

/// The index's file: `magic "PCSI"`, version 3 (its entries hold the summary's details and the profile's
/// directory; older versions are not read, and the next table writes the index again), three zero bytes,
/// a 24-byte XChaCha20-Poly1305 nonce, then the sealed body (associated data: the 8-byte header and
/// `\0profiles=<the profiles' directory>`). The body is its entries, by name: a 1-byte length and the
/// profile's name, a 4-byte length and the entry: four fingerprints (`profile.json`, the cache, the
/// generation record and the profile's directory when the side files were absent; each a presence byte,
/// then device, inode, size, and the modification and change times as seconds and nanoseconds, 8 bytes
/// each, big-endian), then the summary's fields as `status.enc` holds them.
package enum StatusIndexFile {
    package static let header: [UInt8] = Array("PCSI".utf8) + [3, 0, 0, 0]

    package static func associatedData(_ profiles: String) -> [UInt8] { header + Array("\u{0}profiles=\(profiles)".utf8) }

    package static func seal(_ entries: [String: [UInt8]], key: [UInt8], profiles: String) -> [UInt8] {
        var body: [UInt8] = []
        for (name, entry) in entries.sorted(by: { $0.key < $1.key }) {
            body.append(UInt8(name.utf8.count))
            body += name.utf8
            StatusSummaryFile.appendNumber(UInt64(entry.count), width: 4, to: &body)
            body += entry
        }
        let nonce = Sodium.randomBytes(Sodium.aeadNonceLength)
        return header + nonce + Sodium.seal(plaintext: body, associatedData: associatedData(profiles), nonce: nonce, key: key)
    }

    /// The body and where each entry lies in it; nil when the file is not an index for these profiles
    /// under this key, or is damaged. The body is decrypted in the bytes read (a thousand profiles make
    /// half a megabyte: no copy of the ciphertext nor a second buffer for the plaintext), after the
    /// header and nonce, which stay before it. The entries themselves are read when looked up.
    static func open(
        _ body: inout [UInt8], key: [UInt8], profiles: String
    ) -> (body: [UInt8], entries: [String: (range: Range<Int>, slot: Int)])? {
        let start = header.count + Sodium.aeadNonceLength
        guard body.count >= start + Sodium.aeadTagLength, body[..<header.count].elementsEqual(header) else { return nil }
        let nonce = Array(body[header.count..<start])
        guard Sodium.openInPlace(&body, from: start, associatedData: associatedData(profiles), nonce: nonce, key: key) else { return nil }
        var reader = RecordReader(body, maximumField: 0, at: start)
        var entries: [String: (range: Range<Int>, slot: Int)] = [:]
        entries.reserveCapacity(body.count / 300)
        while !reader.atEnd {
            guard let length = reader.integer(1), let name = reader.take(Int(length)).flatMap(validUTF8String),
                let count = reader.integer(4), reader.take(Int(count)) != nil, entries[name] == nil
            else { return nil }
            entries[name] = ((reader.position - Int(count))..<reader.position, entries.count)
        }
        return (body, entries)
    }

    package static func append(_ files: StatusIndex.Files, to entry: inout [UInt8]) {
        for file in [files.profile, files.cache, files.generation, files.directory] {
            guard !file.isMissing else {
                entry.append(0)
                continue
            }
            entry.append(1)
            for value in [
                file.device, file.inode, file.size, UInt64(bitPattern: file.modified.seconds),
                UInt64(bitPattern: file.modified.nanoseconds),
                UInt64(bitPattern: file.changed.seconds), UInt64(bitPattern: file.changed.nanoseconds),
            ] {
                StatusSummaryFile.appendNumber(value, width: 8, to: &entry)
            }
        }
    }

    package static func files(_ reader: inout RecordReader) -> StatusIndex.Files? {
        func file() -> FileFingerprint? {
            guard let present = reader.integer(1), present <= 1 else { return nil }
            if present == 0 { return .missing }
            guard let device = reader.integer(8), let inode = reader.integer(8), let size = reader.integer(8),
                let modified = reader.integer(8), let modifiedNanoseconds = reader.integer(8), let changed = reader.integer(8),
                let changedNanoseconds = reader.integer(8)
            else { return nil }
            return FileFingerprint(
                device: device, inode: inode, size: size,
                modified: .init(seconds: Int64(bitPattern: modified), nanoseconds: Int64(bitPattern: modifiedNanoseconds)),
                changed: .init(seconds: Int64(bitPattern: changed), nanoseconds: Int64(bitPattern: changedNanoseconds)))
        }
        guard let profile = file(), let cache = file(), let generation = file(), let directory = file() else { return nil }
        return StatusIndex.Files(profile: profile, cache: cache, generation: generation, directory: directory)
    }
}
