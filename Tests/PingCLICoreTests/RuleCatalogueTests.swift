import Foundation
import Testing

@testable import PingBase

@Suite("rule catalogue")
struct RuleCatalogueTests {
    /// The backquoted names of docs/security.md's "Failure rules" section.
    func documentedRules() throws -> [String] {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/security.md")
            .standardizedFileURL.path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let start = try #require(text.range(of: "### Failure rules\n"), "docs/security.md has no Failure rules section")
        let section = text[start.upperBound...]
        let end = section.range(of: "\n#")?.lowerBound ?? section.endIndex
        return section[..<end].split(separator: "\n").filter { $0.hasPrefix("- ") }.flatMap { line in
            line.split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
        }
    }

    @Test("rule-catalogue-documented: docs/security.md lists every rule of the catalogue, and nothing else")
    func documented() throws {
        let documented = try documentedRules()
        let catalogue = Rule.allCases.map(\.rawValue)
        #expect(documented.count > 100, "found \(documented.count) names")
        #expect(Set(documented).subtracting(catalogue).sorted() == [], "documented but not in Rule")
        #expect(Set(catalogue).subtracting(documented).sorted() == [], "in Rule but not documented")
        #expect(documented.count == Set(documented).count, "a name is listed twice")
    }

    @Test("rule-catalogue-names: every rule name is lower-case words and digits joined by single hyphens")
    func names() {
        for rule in Rule.allCases {
            let words = rule.rawValue.split(separator: "-", omittingEmptySubsequences: false)
            #expect(words.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isLowercase || $0.isNumber } }, "\(rule.rawValue)")
        }
    }
}
