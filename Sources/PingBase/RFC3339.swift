#if canImport(Glibc)
    import Glibc
#endif

/// [RFC 3339](https://www.rfc-editor.org/rfc/rfc3339#section-5.6) date-times as STS and AM write them:
/// `2026-12-05T22:16:46Z`, with optional fractional seconds and a `Z` or numeric offset. Nil for anything
/// else (a day 31 of February too).
public func parseRFC3339(_ text: String) -> Double? {
    let bytes = Array(text.utf8)
    guard bytes.count >= 20, bytes.count <= 40 else { return nil }
    func number(_ range: Range<Int>) -> Int? {
        guard range.upperBound <= bytes.count, bytes[range].allSatisfy(\.isASCIIDigit) else { return nil }
        return bytes[range].reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }
    let separators: [(Int, UInt8)] = [(4, 0x2D), (7, 0x2D), (13, 0x3A), (16, 0x3A)]
    guard separators.allSatisfy({ bytes[$0.0] == $0.1 }), bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"),
        let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
        let minute = number(14..<16), let second = number(17..<19), (1...12).contains(month), hour < 24, minute < 60, second < 61
    else { return nil }
    let monthDays = [31, year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    guard (1...monthDays[month - 1]).contains(day) else { return nil }
    var index = 19
    if bytes[index] == UInt8(ascii: ".") {
        index += 1
        let start = index
        while index < bytes.count, bytes[index].isASCIIDigit { index += 1 }
        guard index > start else { return nil }
    }
    var offset = 0
    guard index < bytes.count else { return nil }
    if bytes[index] == UInt8(ascii: "Z") || bytes[index] == UInt8(ascii: "z") {
        index += 1
    } else {
        guard bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-"), index + 6 == bytes.count,
            bytes[index + 3] == UInt8(ascii: ":"), let hours = number((index + 1)..<(index + 3)),
            let minutes = number((index + 4)..<(index + 6)), hours < 24, minutes < 60
        else { return nil }
        offset = (hours * 3600 + minutes * 60) * (bytes[index] == UInt8(ascii: "-") ? -1 : 1)
        index += 6
    }
    guard index == bytes.count else { return nil }
    var parts = tm()
    parts.tm_year = Int32(year - 1900)
    parts.tm_mon = Int32(month - 1)
    parts.tm_mday = Int32(day)
    parts.tm_hour = Int32(hour)
    parts.tm_min = Int32(minute)
    parts.tm_sec = Int32(min(second, 59))
    return Double(timegm(&parts) - offset)
}
