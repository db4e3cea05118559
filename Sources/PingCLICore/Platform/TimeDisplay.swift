/// 9999-12-31T23:59:59Z, the last instant `formatUTC` shows.
let latestDisplayableTime = 253_402_300_799.0

/// `2026-11-21T18:04:05Z` from seconds since 1970.
///
/// Total over every `Double`: an instant outside 1970…9999 is shown at that end of the range, and
/// NaN as `unknown` (a cached value is authenticated, but a formatter must not trap on it).
func formatUTC(_ seconds: Double) -> String {
    guard !seconds.isNaN else { return "unknown" }
    let clamped = min(max(seconds.rounded(.down), 0), latestDisplayableTime)
    let days = Int((clamped / 86_400).rounded(.down))
    var remainder = Int(clamped) - days * 86_400
    let hour = remainder / 3600
    remainder %= 3600
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    return "\(year)-\(two(month))-\(two(day))T\(two(hour)):\(two(remainder / 60)):\(two(remainder % 60))Z"
}

/// "in 59m 12s" or "expired 3m ago".
func describeInterval(_ seconds: Double) -> String {
    guard !seconds.isNaN else { return "at an unknown time" }
    let total = Int(min(abs(seconds), latestDisplayableTime))
    let text = total >= 3600 ? "\(total / 3600)h \(total % 3600 / 60)m" : total >= 60 ? "\(total / 60)m \(total % 60)s" : "\(total)s"
    return seconds >= 0 ? "in \(text)" : "expired \(text) ago"
}
