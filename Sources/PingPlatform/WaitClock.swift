import PingBase

#if canImport(Glibc)
    import Glibc
#endif

/// Monotonic time and the waits measured on it: how long the loopback listener waits for a browser,
/// when the hint is due, how long the profile's lock is waited for. The product uses the system's
/// (`system`); the in-process tests pass one whose time only they move, so no wait there depends on
/// how busy the machine is.
public struct WaitClock: Sendable {
    /// Monotonic seconds, for deadlines that a change of the wall clock cannot move.
    public var now: @Sendable () -> Double
    /// Waits that many seconds.
    public var sleep: @Sendable (_ seconds: Double) -> Void
    /// Waits up to `seconds` for one of `descriptors` to be ready, as `poll(2)` does, and returns
    /// what it returns (0: nothing happened in that time).
    public var poll: @Sendable (_ descriptors: inout [pollfd], _ seconds: Double) -> Int32

    public init(
        now: @escaping @Sendable () -> Double, sleep: @escaping @Sendable (_ seconds: Double) -> Void,
        poll: @escaping @Sendable (_ descriptors: inout [pollfd], _ seconds: Double) -> Int32
    ) {
        self.now = now
        self.sleep = sleep
        self.poll = poll
    }

    /// The system's: `CLOCK_MONOTONIC`, `nanosleep` and `poll`.
    public static let system = WaitClock(now: MonotonicClock.now, sleep: sleepSeconds, poll: pollSeconds)

    /// `nanosleep` for `seconds`, resumed after a signal.
    public static func sleepSeconds(_ seconds: Double) {
        guard seconds > 0 else { return }
        var pause = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        var left = timespec()
        while nanosleep(&pause, &left) == -1 && errno == EINTR { pause = left }
    }

    /// `poll(2)` with a timeout in seconds (rounded up to the millisecond, so a short wait is not a busy loop).
    public static func pollSeconds(_ descriptors: inout [pollfd], _ seconds: Double) -> Int32 {
        let milliseconds = Int32(max(0, min(seconds, 3600)) * 1000 + 0.999)
        return Glibc.poll(&descriptors, nfds_t(descriptors.count), milliseconds)
    }
}
