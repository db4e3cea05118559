/// Scans of bytes eight at a time (SWAR: one `UInt64` per step), for the loops every `token --raw`
/// runs over every byte it reads or prints: the JSON strings of `profile.json`, the terminal check of
/// the output. A word is skipped whole when no byte of it can matter; the first word that might holds
/// is looked at byte by byte with the same rule as before, so the result is the byte loop's.
///
/// The tests are Bit Twiddling Hacks' `haszero` and `hasless`: each says exactly whether some byte of
/// the word qualifies (which byte, it may not say; the byte loop does).
package enum ByteScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// Whether some byte of `word` equals `byte`.
    @inline(__always)
    package static func contains(_ word: UInt64, _ byte: UInt8) -> Bool {
        let difference = word ^ (ones &* UInt64(byte))
        return (difference &- ones) & ~difference & highs != 0
    }

    /// Whether some byte of `word` is below `limit` (at most 128).
    @inline(__always)
    package static func containsBelow(_ word: UInt64, _ limit: UInt8) -> Bool {
        (word &- ones &* UInt64(limit)) & ~word & highs != 0
    }

    /// Whether some byte of `word` is not ASCII (0x80 or above).
    @inline(__always)
    package static func containsNonASCII(_ word: UInt64) -> Bool { word & highs != 0 }

    /// Whether some byte of `word` is 0x7F or above (DEL, or not ASCII).
    @inline(__always)
    package static func containsDeleteOrAbove(_ word: UInt64) -> Bool {
        (word | (word &+ ones)) & highs != 0
    }

    /// The lanes (their high bit) of an ASCII `word` whose byte is at least `low` (at most 0x80): each
    /// lane's `byte | 0x80` minus `low` stays within the lane and keeps its high bit iff `byte >= low`.
    @inline(__always)
    private static func atLeast(_ word: UInt64, _ low: UInt8) -> UInt64 {
        ((word | highs) &- ones &* UInt64(low)) & highs
    }

    /// The lanes of an ASCII `word` whose byte is in `low...high` (`high` below 0x80).
    @inline(__always)
    private static func within(_ word: UInt64, _ low: UInt8, _ high: UInt8) -> UInt64 {
        atLeast(word, low) & ~atLeast(word, high + 1)
    }

    /// The lanes of an ASCII `word` holding a letter: with bit 0x20 set in every lane, `A–Z` become
    /// `a–z` and no other byte lands in `a–z` (0x40, 0x5B–0x5F become 0x60, 0x7B–0x7F).
    @inline(__always)
    private static func letters(_ word: UInt64) -> UInt64 {
        within(word | 0x2020_2020_2020_2020, 0x61, 0x7A)
    }

    /// Whether every byte is ASCII (below 0x80): 32 bytes a step (one test of four words' union), then
    /// eight at a time.
    package static func allASCII(_ buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        if let base = buffer.baseAddress {
            let raw = UnsafeRawPointer(base)
            while index + 32 <= buffer.count {
                let union =
                    raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                    | raw.loadUnaligned(fromByteOffset: index + 8, as: UInt64.self)
                    | raw.loadUnaligned(fromByteOffset: index + 16, as: UInt64.self)
                    | raw.loadUnaligned(fromByteOffset: index + 24, as: UInt64.self)
                guard !containsNonASCII(union) else { return false }
                index += 32
            }
        }
        return firstIndex(in: buffer, from: index, mayStop: containsNonASCII, stops: { $0 >= 0x80 }) == buffer.count
    }

    /// Whether all eight bytes are base64url (RFC 4648 §5): letters, digits, `-`, `_`.
    @inline(__always)
    package static func allBase64URL(_ word: UInt64) -> Bool {
        guard word & highs == 0 else { return false }
        let letters = within(word, 0x41, 0x5A) | within(word, 0x61, 0x7A)
        return letters | within(word, 0x30, 0x39) | within(word, 0x2D, 0x2D) | within(word, 0x5F, 0x5F) == highs
    }

    /// Whether all eight bytes are RFC 6750 b64token before its padding: letters, digits, `-._~+/`.
    @inline(__always)
    package static func allB64TokenBody(_ word: UInt64) -> Bool {
        guard word & highs == 0 else { return false }
        // `-./` and the digits are one run, 0x2D–0x39.
        let symbols = within(word, 0x2B, 0x2B) | within(word, 0x5F, 0x5F) | within(word, 0x7E, 0x7E)
        return letters(word) | within(word, 0x2D, 0x39) | symbols == highs
    }

    // The concrete scans the grammars and the terminal check of other modules call: one direct call a
    // scan, the word test inlined into its loop here. Handed across a module boundary as a function
    // value, the word test was called through a thunk for every word (docs/performance.md, Issue 29).

    /// `wholeWords` of RFC 6750 b64token body bytes (`allB64TokenBody`).
    package static func wholeB64TokenBodyWords(in buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        wholeWords(in: buffer, from: start, where: allB64TokenBody)
    }

    /// `wholeWords` of base64url bytes (`allBase64URL`).
    package static func wholeBase64URLWords(in buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        wholeWords(in: buffer, from: start, where: allBase64URL)
    }

    /// The index of the first byte from `start` on that is neither printable ASCII (0x20–0x7E) nor a
    /// newline or tab, or `buffer.count`: what `Console.terminalSafe` lets through unchanged.
    package static func firstNotPlainText(in buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        firstIndex(
            in: buffer, from: start, mayStop: { containsBelow($0, 0x20) || containsDeleteOrAbove($0) },
            stops: { !((0x20..<0x7F).contains($0) || $0 == 0x0A || $0 == 0x09) })
    }

    /// The index of the first byte from `start` on that a JSON string cannot hold as it is (a control
    /// character, a quote, a backslash) or that `JSONValue`'s writer looks at as a scalar (DEL and
    /// everything beyond ASCII), or `buffer.count`.
    package static func firstNeedingJSONEscape(in buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        firstIndex(
            in: buffer, from: start,
            mayStop: { containsBelow($0, 0x20) || containsDeleteOrAbove($0) || contains($0, 0x22) || contains($0, 0x5C) },
            stops: { $0 < 0x20 || $0 > 0x7E || $0 == 0x22 || $0 == 0x5C })
    }

    /// From `start`, past every whole word for which `all` is true: the index of the first byte of the
    /// first word for which it is not, or of the last, shorter part.
    @inline(__always)
    package static func wholeWords(in buffer: UnsafeBufferPointer<UInt8>, from start: Int, where all: (UInt64) -> Bool) -> Int {
        var index = start
        guard let base = buffer.baseAddress else { return index }
        let raw = UnsafeRawPointer(base)
        while index + 8 <= buffer.count, all(raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) { index += 8 }
        return index
    }

    /// The index of the first byte from `start` on for which `stops` is true, or `buffer.count`.
    /// `mayStop(word)` must be true for every word holding such a byte; words for which it is false
    /// are skipped without looking at their bytes, the others are looked at byte by byte.
    @inline(__always)
    package static func firstIndex(
        in buffer: UnsafeBufferPointer<UInt8>, from start: Int, mayStop: (UInt64) -> Bool, stops: (UInt8) -> Bool
    ) -> Int {
        var index = start
        if let base = buffer.baseAddress {
            let raw = UnsafeRawPointer(base)
            while index + 8 <= buffer.count {
                if mayStop(raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) {
                    for offset in index..<(index + 8) where stops(buffer[offset]) { return offset }
                }
                index += 8
            }
        }
        while index < buffer.count, !stops(buffer[index]) { index += 1 }
        return index
    }
}
