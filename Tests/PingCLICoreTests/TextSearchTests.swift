import Foundation
import Testing

@testable import PingCommandLine

/// `TextSearch` (PingBase) against the standard library's `_StringProcessing` string algorithms it
/// replaces in pingcli's layers: the same results for every ASCII text and needle up to a size, and
/// the byte semantics it documents where Character comparison differs.
@Suite("text search: byte-wise contains, firstRange, split and replacing")
struct TextSearchTests {
    /// Every string over `alphabet` of each length in `lengths`.
    private static func strings(_ alphabet: [Character], _ lengths: ClosedRange<Int>) -> [String] {
        var all: [String] = []
        var level = [""]
        for length in 0...lengths.upperBound {
            if length >= lengths.lowerBound { all += level }
            level = level.flatMap { prefix in alphabet.map { prefix + String($0) } }
        }
        return all
    }

    @Test("every text of a, b and c up to 6 and needle up to 3: as contains, firstRange(of:), split and replacing")
    func agreesWithStringProcessing() {
        let texts = Self.strings(["a", "b", "c"], 0...6)
        let needles = Self.strings(["a", "b"], 1...3)
        #expect(texts.count == 1093 && needles.count == 14)
        for text in texts {
            for needle in needles {
                #expect(text.containsText(needle) == text.contains(needle), "\(text) \(needle)")
                #expect(text.startsWithText(needle) == text.hasPrefix(needle), "\(text) \(needle)")
                #expect(text.firstRange(ofText: needle) == text.firstRange(of: needle), "\(text) \(needle)")
                #expect(text.replacingText(needle, with: "<>") == text.replacing(needle, with: "<>"), "\(text) \(needle)")
                for omitting in [true, false] {
                    let expected = text.split(separator: needle, omittingEmptySubsequences: omitting).map(String.init)
                    let split = text.splitText(separator: needle, omittingEmptySubsequences: omitting).map(String.init)
                    #expect(split == expected, "\(text) \(needle) \(omitting)")
                }
            }
        }
    }

    @Test("a substring is searched within its own bounds, and its ranges index the base string")
    func substring() throws {
        let text = "xx-----BEGIN-----yy-----END-----zz"
        let begin = try #require(text.firstRange(ofText: "-----BEGIN-----"))
        let rest = text[begin.upperBound...]
        let end = try #require(rest.firstRange(ofText: "-----END-----"))
        #expect(text[begin.upperBound..<end.lowerBound] == "yy")
        #expect(rest.firstRange(ofText: "xx") == nil)
        #expect(text.dropFirst(3).containsText("xx") == false)
        #expect(text.dropLast(2).splitText(separator: "-----") == ["xx", "BEGIN", "yy", "END"])
    }

    @Test("overlapping occurrences: found left to right, none overlapping the one before")
    func overlapping() {
        #expect("aaaa".replacingText("aa", with: "b") == "bb")
        #expect("aaa".replacingText("aa", with: "b") == "ba")
        #expect("aaa".splitText(separator: "aa", omittingEmptySubsequences: false) == ["", "a"])
        #expect("abab".firstRange(ofText: "bab").map { "abab".utf8.distance(from: "abab".startIndex, to: $0.lowerBound) } == 1)
    }

    @Test("an empty needle is found at the start and nowhere else; an empty text holds only it")
    func empty() {
        #expect("abc".containsText(""))
        #expect("".containsText(""))
        #expect(!"".containsText("a"))
        #expect("abc".firstRange(ofText: "") == "abc".startIndex..<"abc".startIndex)
        #expect("abc".replacingText("", with: "x") == "abc")
        #expect("abc".splitText(separator: "") == ["abc"])
        #expect("".splitText(separator: "") == [])
        #expect("".splitText(separator: "", omittingEmptySubsequences: false) == [""])
        #expect("".splitText(separator: "-", omittingEmptySubsequences: false) == [""])
        #expect("--".splitText(separator: "-") == [])
        #expect("--".splitText(separator: "-", omittingEmptySubsequences: false) == ["", "", ""])
        #expect("ab".containsText("abc") == false)
    }

    @Test("beyond ASCII: bytes of valid UTF-8, ranges on scalar boundaries; a \\r is found in \\r\\n and e before a combining accent")
    func beyondASCII() throws {
        let text = "naïve café — 東京 🙂 end"
        let range = try #require(text.firstRange(ofText: "東京"))
        #expect(text[range] == "東京")
        #expect(text.replacingText("é", with: "e") == "naïve cafe — 東京 🙂 end")
        #expect(text.splitText(separator: " ") == ["naïve", "café", "—", "東京", "🙂", "end"])
        #expect(text.splitText(separator: "🙂") == ["naïve café — 東京 ", " end"])
        // "é" precomposed (U+00E9) and decomposed (e, U+0301) are different bytes: not the same text here.
        #expect(!"cafe\u{301}".containsText("é"))
        #expect("cafe\u{301}".containsText("e"))
        #expect("a\r\nb".containsText("\r"))
        #expect("a\r\nb".splitText(separator: "\n") == ["a\r", "b"])
        // A needle's lead byte never matches a continuation byte: "¢" (C2 A2) is not inside "Ģ" (C4 A2).
        #expect(!"Ģ".containsText("¢"))
    }
}

@Suite("start-up budget: code a token --raw need not run")
struct NoStringProcessingTests {
    @Test(
        "no-string-processing: every module of pingcli is compiled without the implicit import of _StringProcessing, and none imports it or RegexBuilder (they cost 0.9 MB of code and 2,600 relocations of every start)"
    )
    func noStringProcessing() throws {
        let sources = #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
        let manifest = try String(contentsOfFile: "/" + sources + "/Package.swift", encoding: .utf8)
        #expect(manifest.contains("\"-Xfrontend\", \"-disable-implicit-string-processing-module-import\""))
        let targets = PingModules.product + ["PingFuzz"]
        let list = try #require(manifest.firstRange(of: "let withoutStringProcessing: Set = [")).upperBound
        let listed = manifest[list...].prefix { $0 != "]" }
        for target in targets {
            #expect(listed.contains("\"\(target)\""), "\(target) is not compiled without _StringProcessing")
            let directory = "/" + sources + "/Sources/" + target
            for file in try #require(FileManager.default.enumerator(atPath: directory)).compactMap({ $0 as? String })
            where file.hasSuffix(".swift") {
                let text = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
                let imports = text.split(separator: "\n").filter {
                    let line = $0.drop { $0 == " " }
                    return line.hasPrefix("import _StringProcessing") || line.hasPrefix("import RegexBuilder")
                }
                #expect(imports.isEmpty, "\(target)/\(file) imports string processing: see docs/performance.md")
            }
        }
    }

    @Test("min-ttl's help names the default the option has (written out, not interpolated)")
    func minimumTTLHelp() {
        #expect(MinimumTTLOption.spec.help.containsText("(default \(Int(MinimumTTLOption.defaultSeconds)))"))
    }
}
