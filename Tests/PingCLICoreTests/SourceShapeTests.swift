import Foundation
import Testing

/// The brief's shape rules, checked on every `.swift` file under `Sources/`: no function body over 60 lines
/// outside tables, and no file over 400 lines.
@Suite("source shape")
struct SourceShapeTests {
    static let maximumFunctionLines = 60
    static let maximumFileLines = 400

    /// Functions allowed over 60 lines, as "path under Sources/ name(labels:)", each with its reason.
    static let allowedFunctions: [String: String] = [
        "PingAM/JourneyCallbackKinds.swift kind(_:_:)": "a table: one case per AM callback type"
    ]

    /// Files allowed over 400 lines, as "path under Sources/", each with its reason.
    static let allowedFiles: [String: String] = [
        "PingBase/Rule.swift": "a table: one case per rule of the catalogue (docs/security.md, \"Failure rules\")"
    ]

    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources")
        .standardizedFileURL

    /// Every `.swift` file under `Sources/`, as (path under Sources/, shape).
    static func shapes() throws -> [(String, SourceShape)] {
        let paths = try FileManager.default.subpathsOfDirectory(atPath: sources.path).filter { $0.hasSuffix(".swift") }
        return try paths.sorted().map { path in
            (path, SourceShape(try String(contentsOf: sources.appendingPathComponent(path), encoding: .utf8)))
        }
    }

    /// "path:line name (N lines)" for each function over the limit, allowed or not.
    static func longFunctions() throws -> [(key: String, report: String)] {
        try shapes().flatMap { path, shape in
            try functions(path, shape).filter { $0.lines > maximumFunctionLines }.map { ("\(path) \($0.name)", "\(path):\($0)") }
        }
    }

    /// A file's functions, and for a `main.swift` its top-level code as one more.
    static func functions(_ path: String, _ shape: SourceShape) throws -> [SourceShape.Function] {
        guard path.hasSuffix("main.swift") else { return shape.functions() }
        let original = try String(contentsOf: sources.appendingPathComponent(path), encoding: .utf8)
        return shape.functions() + [shape.topLevelCode(original: original)]
    }

    @Test("source-shape-functions: no function in Sources/ is over 60 lines, except the allow-list's tables")
    func functions() throws {
        let long = try Self.longFunctions()
        #expect(long.count > 0 || Self.allowedFunctions.isEmpty, "the scanner found no function at all over the limit")
        let offending = long.filter { Self.allowedFunctions[$0.key] == nil }.map(\.report)
        #expect(offending == [], "split these along their steps (or, for a table, add them to allowedFunctions)")
    }

    @Test("source-shape-allow-list-current: every allow-list entry still names a function over 60 lines")
    func allowListCurrent() throws {
        let long = Set(try Self.longFunctions().map(\.key))
        let stale = Self.allowedFunctions.keys.filter { !long.contains($0) }.sorted()
        #expect(stale == [], "remove these from allowedFunctions: they are no longer over the limit")
        #expect(try Self.shapes().count > 100, "found too few source files under \(Self.sources.path)")
    }

    @Test("source-shape-files: no file in Sources/ is over 400 lines")
    func files() throws {
        let offending = try Self.shapes().filter { $0.1.lineCount > Self.maximumFileLines && Self.allowedFiles[$0.0] == nil }
            .map { "\($0.0) (\($0.1.lineCount) lines)" }
        #expect(offending == [], "split these along the spec's nouns")
    }

    /// A function whose body has `bodyLines` lines between its braces, so `bodyLines + 2` in all.
    static func function(_ name: String, bodyLines: Int) -> String {
        "    func \(name)(_ value: Int, label other: [String: Int] = [:]) -> Int {\n"
            + String(repeating: "        _ = value\n", count: bodyLines) + "    }\n"
    }

    @Test("source-shape-scanner-reports: a 61-line function is reported, a 60-line one is not")
    func scannerReports() {
        let source = "struct S {\n" + Self.function("long", bodyLines: 59) + Self.function("fits", bodyLines: 58) + "}\n"
        let found = SourceShape(source).functions()
        #expect(found.map(\.name) == ["long(_:label:)", "fits(_:label:)"])
        #expect(found.map(\.lines) == [61, 60])
        #expect(found.map(\.line) == [2, 63])
        #expect(found.filter { $0.lines > Self.maximumFunctionLines }.map(\.name) == ["long(_:label:)"])
        #expect(SourceShape(source).lineCount == 123)
    }

    @Test("source-shape-scanner-literals: braces in strings, interpolations and comments do not end a body")
    func scannerSkipsLiteralsAndComments() {
        let source = #"""
            protocol P {
                func requirement() -> Int
                var computed: Int { get }
            }
            struct S {
                init?(from text: String) {
                    let a = "}}} \(text.map { "}" + $0.description }) {"
                    let b = """
                        } } \""" not the end
                        """
                    let c = #"raw \" } "#
                    /* a block } comment /* nested } */ still } */
                    // a line comment }
                    _ = (a, b, c)
                }
                var total: Int {
                    return 1
                }
                var stored = 1
                deinit {}
            }
            """#
        let found = SourceShape(source).functions()
        #expect(found.map(\.name) == ["computed", "init(from:)", "total", "deinit"])
        #expect(found.map(\.line) == [3, 6, 16, 20])
        #expect(found.map(\.lines) == [1, 10, 3, 1])
    }

    @Test("source-shape-top-level-code: a main.swift's statements outside its declarations count as one function")
    func topLevelCode() {
        let statements = (0..<61).map { "print(\($0))\n" }.joined()
        let source =
            "import Foundation\n\n// a comment\nfunc helper() {\n" + String(repeating: "    _ = 1\n", count: 5) + "}\n"
            + "let usage = \"\"\"\n    line one\n    line two\n    \"\"\"\n" + statements
            + "#if canImport(Glibc)\n    import Glibc\n#endif\n"
        let shape = SourceShape(source)
        let top = shape.topLevelCode(original: source)
        #expect(top.lines == 65, "the let with its three string lines and 61 statements: \(top)")
        #expect(top.line == 11)
        let short = "import Foundation\nstruct S {\n    var a = 1\n}\nrun()\n"
        #expect(SourceShape(short).topLevelCode(original: short).lines == 1)
    }
}
