#if canImport(Glibc)
    import Glibc
#endif

/// Monotonic seconds, for deadlines that a clock change cannot move.
public enum MonotonicClock {
    public static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}

/// Wall-clock seconds since 1970; token expiry is wall-clock by nature.
public typealias WallClock = @Sendable () -> Double

public let systemWallClock: WallClock = {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}
