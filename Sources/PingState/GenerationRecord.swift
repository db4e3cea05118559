import PingBase
import PingPlatform

/// A number recorded beside the key (in the data directory, not the config directory the records sit
/// in) for an encrypted record that a restored backup must not replace: the token cache of each profile
/// (`generations/<profile>`) and the OTP store (`otp-generation`). Each write of the record seals the
/// next generation into it (authenticated, in its associated data) and then records that number here;
/// a record older than the recorded number was put back from a backup or a sync, and is refused. A
/// crash in between leaves the record one ahead of the number, which is read (only older ones are
/// refused). The file holds the number in decimal and a newline; it is this user's, mode 0600.
package struct GenerationRecord: Sendable {
    package let path: String

    /// Why the record could not be read: the file itself (`file`), or a file that is not one number.
    /// The record's owner words it (the token cache through `StoreFailure`, the OTP store its own line).
    package enum Failure: Error, Sendable {
        case file(FileFailure)
        case damaged(path: String)
    }

    package init(path: String) { self.path = path }

    /// The recorded generation; 0 when none was recorded (the record was written by an older pingcli
    /// only, or never). A file that is not one number is refused, never read as 0.
    package func read() throws(Failure) -> UInt64 {
        let read: [UInt8]?
        do { read = try FileSystem.read(path, limit: 64, protection: .secret) } catch { throw .file(error) }
        guard let bytes = read else { return 0 }
        guard let generation = UInt64(String(decoding: bytes, as: UTF8.self).trimmingWhitespace) else {
            throw .damaged(path: path)
        }
        return generation
    }

    /// Records `generation` (atomically; its directory made private first).
    package func write(_ generation: UInt64) throws(FileFailure) {
        try FileSystem.ensurePrivateDirectory(FileSystem.parent(of: path))
        try FileSystem.atomicWrite(path, Array("\(generation)\n".utf8))
    }
}
