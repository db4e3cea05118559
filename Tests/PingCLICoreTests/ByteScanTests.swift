import Testing

@testable import PingBase
@testable import PingOAuth
@testable import PingTerminal

/// The word-at-a-time scans and the grammar masks give exactly what the byte-by-byte rules they
/// replace give: every byte value at every position of a word, and the edges of the buffer.
@Suite("byte scans: SWAR words and ASCII masks agree with the byte rules")
struct ByteScanTests {
    @Test("ASCIISet masks hold exactly the bytes their predicates accept, all 256")
    func masks() {
        for value in 0...255 {
            let byte = UInt8(value)
            #expect(ASCIISet.b64tokenBody.contains(byte) == AccessToken.isB64TokenBody(byte), "\(value)")
            #expect(ASCIISet.base64URL.contains(byte) == byte.isBase64URL, "\(value)")
            #expect(ASCIISet.urlCharacter.contains(byte) == EndpointURL.isURLCharacter(byte), "\(value)")
        }
    }

    @Test("SWAR word tests: each byte value in each lane of a word is seen")
    func wordTests() {
        for lane in 0..<8 {
            for value in 0...255 {
                // A background of printable, harmless bytes ("a"), with one byte changed.
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 8)
                bytes[lane] = UInt8(value)
                let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                #expect(ByteScan.contains(word, UInt8(ascii: "\"")) == (value == 0x22), "lane \(lane) value \(value)")
                #expect(ByteScan.containsBelow(word, 0x20) == (value < 0x20), "lane \(lane) value \(value)")
                #expect(ByteScan.containsDeleteOrAbove(word) == (value >= 0x7F), "lane \(lane) value \(value)")
                #expect(ByteScan.allBase64URL(word) == UInt8(value).isBase64URL, "lane \(lane) value \(value)")
                #expect(ByteScan.allB64TokenBody(word) == AccessToken.isB64TokenBody(UInt8(value)), "lane \(lane) value \(value)")
            }
        }
    }

    @Test("firstIndex finds the first stop at every position and length, as the byte loop does")
    func firstIndex() {
        func naive(_ bytes: [UInt8], from start: Int) -> Int {
            var index = start
            while index < bytes.count, !(bytes[index] == 0x22 || bytes[index] < 0x20) { index += 1 }
            return index
        }
        for length in 0...27 {
            for stop in [-1] + Array(0..<length) {
                for second in [-1, stop + 3] where second < length {
                    var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: length)
                    if stop >= 0 { bytes[stop] = stop % 2 == 0 ? 0x22 : 0x0A }
                    if second >= 0 { bytes[second] = 0x22 }
                    for start in 0...length {
                        let found = bytes.withUnsafeBufferPointer {
                            ByteScan.firstIndex(
                                in: $0, from: start, mayStop: { ByteScan.contains($0, 0x22) || ByteScan.containsBelow($0, 0x20) },
                                stops: { $0 == 0x22 || $0 < 0x20 })
                        }
                        #expect(found == naive(bytes, from: start), "length \(length) stop \(stop) start \(start)")
                    }
                }
            }
        }
    }

    @Test("allASCII finds a byte beyond ASCII at every position and length, as the byte loop does")
    func allASCII() {
        for length in 0...70 {
            #expect(Array(repeating: UInt8(ascii: "x"), count: length).withUnsafeBufferPointer(ByteScan.allASCII))
            for position in 0..<length {
                for value: UInt8 in [0x7F, 0x80, 0xC3, 0xFF] {
                    var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: length)
                    bytes[position] = value
                    let found = bytes.withUnsafeBufferPointer(ByteScan.allASCII)
                    #expect(found == bytes.allSatisfy { $0 < 0x80 }, "length \(length) position \(position) value \(value)")
                }
            }
        }
    }

    @Test("token grammars: a bad byte, a dot or padding at every position of a long token is judged as the byte rules do")
    func longTokens() {
        let part = String(repeating: "eyJhbGci", count: 4) + "Oi"
        for position in 0..<part.utf8.count {
            for bad in ["=", ".", "+", " ", "\u{7f}", "\u{e9}", "~"] {
                var bytes = Array(part.utf8)
                bytes.replaceSubrange(position...position, with: Array(bad.utf8))
                let changed = String(decoding: bytes, as: UTF8.self)
                let expectedAccess = AccessToken.matchesGrammarByBytes(Array(changed.utf8))
                #expect(AccessToken.matchesGrammar(Array(changed.utf8)) == expectedAccess, "\(changed.debugDescription)")
                let idToken = changed + "." + part + "." + part
                #expect(IDToken.matchesGrammar(Array(idToken.utf8)) == IDToken.matchesGrammarByBytes(Array(idToken.utf8)), "\(idToken)")
            }
        }
        #expect(AccessToken.matchesGrammar(Array((part + "==").utf8)))
        #expect(!AccessToken.matchesGrammar(Array((part + "=a").utf8)))
        #expect(IDToken.matchesGrammar(Array((part + "." + part + "." + part).utf8)))
        #expect(!IDToken.matchesGrammar(Array((part + "." + part + "." + part + ".").utf8)))
    }

    @Test("terminal check and JSON strings: a control byte or quote anywhere in a long value is found")
    func longValues() {
        let long = String(repeating: "abcdefgh", count: 5)
        for position in 0..<long.utf8.count {
            var bytes = Array(long.utf8)
            bytes[position] = 0x1B
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(!Console.terminalSafe(text).utf8.contains(0x1B), "escape at \(position)")
            var quoted = Array(long.utf8)
            quoted[position] = UInt8(ascii: "\"")
            let document = "{\"a\":\"" + String(decoding: quoted, as: UTF8.self) + "\"}"
            // The string ends at the inner quote, so the document is malformed there.
            #expect(JSONReader.parse(Array(document.utf8)) == nil, "quote at \(position)")
            let escaped = "{\"a\":\"" + String(decoding: bytes, as: UTF8.self) + "\"}"
            #expect(JSONReader.parse(Array(escaped.utf8)) == nil, "raw control byte at \(position)")
        }
        #expect(JSONReader.parse(Array(("{\"a\":\"" + long + "\"}").utf8)) != nil)
        #expect(Console.terminalSafe(long + "\n\t" + long) == long + "\n\t" + long)
        #expect(Console.terminalSafe(long + "\u{7f}") == long + " ")
    }
}

extension AccessToken {
    /// The grammar as it was written before the word scan: the reference the scan must agree with.
    static func matchesGrammarByBytes(_ bytes: [UInt8]) -> Bool {
        let body = bytes.prefix { $0 != UInt8(ascii: "=") }
        guard !body.isEmpty, bytes[body.count...].allSatisfy({ $0 == UInt8(ascii: "=") }) else { return false }
        return body.allSatisfy(isB64TokenBody)
    }
}

extension IDToken {
    /// The grammar byte by byte, as it was written before the word scan.
    static func matchesGrammarByBytes(_ bytes: [UInt8]) -> Bool {
        var dots = 0
        var partLength = 0
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                guard partLength > 0, dots < 2 else { return false }
                dots += 1
                partLength = 0
            } else {
                guard byte.isBase64URL else { return false }
                partLength += 1
            }
        }
        return dots == 2
    }
}
