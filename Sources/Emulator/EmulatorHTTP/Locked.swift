import Foundation

/// A value behind a lock, with the shape of `Synchronization.Mutex.withLock`.
///
/// Why not `Mutex`: on Linux its contended path waits on a futex inside the prebuilt, uninstrumented
/// Synchronization library, so ThreadSanitizer never sees the lock being taken and reports every
/// contended access as a race (a ten-line program with eight threads appending under a `Mutex`
/// shows it). `NSLock` is a pthread mutex, which ThreadSanitizer intercepts, so `make test-sanitize`
/// reports only real races. The emulator and the tests take locks a few thousand times a run;
/// the difference in speed does not matter there.
public final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
