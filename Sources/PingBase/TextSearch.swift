/// Text searched for text, byte by byte over UTF-8: what `contains(_:)`, `firstRange(of:)`,
/// `split(separator:)` and `replacing(_:with:)` with a string argument do, without the standard
/// library's `_StringProcessing` module, where those live. Not linking it (and `_RegexParser`, which it
/// brings) keeps 0.9 MB of code and 2,600 relocations out of every start (docs/performance.md, issue 29);
/// pingcli's layers are compiled without its implicit import, so these are what they use.
///
/// Bytes, not Characters: the needles are ASCII markers of protocols and file formats (`-----BEGIN`,
/// ` #`, `%s`, `&lt;`), found wherever their bytes are, also when a combining mark follows or a `\r`
/// is the start of a `\r\n`, which Character comparison would not find. A match of valid UTF-8 in valid
/// UTF-8 starts and ends on scalar boundaries, so every range returned can slice the text.
/// An empty needle is found at the start and nowhere else: `containsText("")` is true, `splitText`
/// on an empty separator does not split, `replacingText("", with:)` changes nothing.
package enum TextSearch {
    /// The offset of the first occurrence of `needle` in `haystack` at or after `start`, or nil.
    package static func firstOffset(
        of needle: UnsafeBufferPointer<UInt8>, in haystack: UnsafeBufferPointer<UInt8>, from start: Int
    )
        -> Int?
    {
        guard let first = needle.first else { return start <= haystack.count ? start : nil }
        guard needle.count <= haystack.count else { return nil }
        var index = start
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first {
                var matched = 1
                while matched < needle.count, haystack[index + matched] == needle[matched] { matched += 1 }
                if matched == needle.count { return index }
            }
            index += 1
        }
        return nil
    }

    /// The offsets of the occurrences of a non-empty `needle`, left to right, none overlapping the one
    /// before (as `ranges(of:)`: `aa` is found twice in `aaaa`, once in `aaa`).
    package static func offsets(of needle: UnsafeBufferPointer<UInt8>, in haystack: UnsafeBufferPointer<UInt8>) -> [Int] {
        guard !needle.isEmpty else { return [] }
        var found: [Int] = []
        var start = 0
        while let offset = firstOffset(of: needle, in: haystack, from: start) {
            found.append(offset)
            start = offset + needle.count
        }
        return found
    }
}

extension StringProtocol {
    /// Whether `needle`'s bytes occur in this text (true for an empty needle).
    package func containsText(_ needle: some StringProtocol) -> Bool {
        withTextBytes(needle) { needle, haystack in TextSearch.firstOffset(of: needle, in: haystack, from: 0) != nil }
    }

    /// Whether this text's bytes start with `prefix`'s (`hasPrefix`, by bytes: as `containsText`).
    /// Inlinable: `token --raw` calls it, and unspecialised, the generic `starts(with:)` had the runtime
    /// build its metadata from mangled names (0.11 M instructions).
    @inlinable
    package func startsWithText(_ prefix: some StringProtocol) -> Bool { utf8.starts(with: prefix.utf8) }

    /// The range of the first occurrence of `needle`'s bytes, or nil (an empty needle: `startIndex..<startIndex`).
    package func firstRange(ofText needle: some StringProtocol) -> Range<Index>? {
        let count = needle.utf8.count
        guard let offset = withTextBytes(needle, { TextSearch.firstOffset(of: $0, in: $1, from: 0) }) else { return nil }
        return textRange(offset, count)
    }

    /// The text between the occurrences of `separator` (left to right, none overlapping), as
    /// `split(separator:omittingEmptySubsequences:)` with a string separator gives it.
    package func splitText(separator: some StringProtocol, omittingEmptySubsequences: Bool = true) -> [SubSequence] {
        let count = separator.utf8.count
        var pieces: [SubSequence] = []
        var start = startIndex
        for offset in withTextBytes(separator, { TextSearch.offsets(of: $0, in: $1) }) {
            let range = textRange(offset, count)
            if !omittingEmptySubsequences || start < range.lowerBound { pieces.append(self[start..<range.lowerBound]) }
            start = range.upperBound
        }
        if !omittingEmptySubsequences || start < endIndex { pieces.append(self[start..<endIndex]) }
        return pieces
    }

    /// This text with every occurrence of `target` (left to right, none overlapping) replaced.
    package func replacingText(_ target: some StringProtocol, with replacement: some StringProtocol) -> String {
        let count = target.utf8.count
        var result = ""
        var start = startIndex
        for offset in withTextBytes(target, { TextSearch.offsets(of: $0, in: $1) }) {
            let range = textRange(offset, count)
            result.append(contentsOf: self[start..<range.lowerBound])
            result.append(contentsOf: replacement)
            start = range.upperBound
        }
        result.append(contentsOf: self[start..<endIndex])
        return result
    }

    /// The range of `count` bytes from byte `offset` (both on scalar boundaries).
    private func textRange(_ offset: Int, _ count: Int) -> Range<Index> {
        let lower = utf8.index(utf8.startIndex, offsetBy: offset)
        return lower..<utf8.index(lower, offsetBy: count)
    }

    /// `body` with the bytes of `needle` and of this text.
    private func withTextBytes<Result>(
        _ needle: some StringProtocol, _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result {
        let needleBytes = Array(needle.utf8)
        return needleBytes.withUnsafeBufferPointer { needle in
            if let result = utf8.withContiguousStorageIfAvailable({ body(needle, $0) }) { return result }
            return Array(utf8).withUnsafeBufferPointer { body(needle, $0) }
        }
    }
}
