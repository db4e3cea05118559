#if canImport(Glibc)
    import Glibc
#endif

/// 9999-12-31T23:59:59Z, the last instant `formatUTC` shows.
package let latestDisplayableTime = 253_402_300_799.0

/// `2026-11-21T18:04:05Z` from seconds since 1970.
///
/// Total over every `Double`: an instant outside 1970…9999 is shown at that end of the range, and
/// NaN as `unknown` (a cached value is authenticated, but a formatter must not trap on it).
package func formatUTC(_ seconds: Double) -> String {
    guard !seconds.isNaN else { return "unknown" }
    var time = time_t(min(max(seconds.rounded(.down), 0), latestDisplayableTime))
    var parts = tm()
    guard gmtime_r(&time, &parts) != nil else { return "unknown" }
    var text = [CChar](repeating: 0, count: 32)
    let length = strftime(&text, text.count, "%Y-%m-%dT%H:%M:%SZ", &parts)
    return String(decoding: text.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// "in 59m 12s" or "expired 3m ago".
package func describeInterval(_ seconds: Double) -> String {
    guard !seconds.isNaN else { return "at an unknown time" }
    let total = Int(min(abs(seconds), latestDisplayableTime))
    let text = total >= 3600 ? "\(total / 3600)h \(total % 3600 / 60)m" : total >= 60 ? "\(total / 60)m \(total % 60)s" : "\(total)s"
    return seconds >= 0 ? "in \(text)" : "expired \(text) ago"
}
