import Foundation
import Testing

/// The use cases stand side by side over one core (docs/architecture.md): sign-in over the session
/// (a new sign-in revokes the session it replaces), journeys over sign-in, and nothing below them
/// reaches up. Package.swift makes an undeclared import a compile error; this test holds the graph
/// itself, so a dependency added to the manifest for convenience fails here.
@Suite("use-case imports")
struct UseCaseImportTests {
    /// For each use-case and command target, the pingcli targets above PingRedirect it may import.
    static let allowed: [String: Set<String>] = [
        "PingFlowCore": [],
        "PingSession": ["PingFlowCore"],
        "PingSignIn": ["PingFlowCore", "PingSession"],
        "PingJourney": ["PingFlowCore", "PingSession", "PingSignIn"],
        "PingCloud": ["PingFlowCore", "PingSession"],
        // The command line parses options into the core's values: no use case below it.
        "PingCommandLine": ["PingFlowCore"],
        "PingLogin": ["PingFlowCore", "PingSession", "PingSignIn", "PingJourney", "PingCommandLine"],
        "PingIntegrations": ["PingFlowCore", "PingSession", "PingSignIn", "PingJourney", "PingCloud", "PingCommandLine", "PingLogin"],
        "PingCommands": [
            "PingFlowCore", "PingSession", "PingSignIn", "PingJourney", "PingCloud", "PingCommandLine", "PingLogin", "PingIntegrations",
        ],
    ]

    static func imports(_ target: String) throws -> [(file: String, module: String)] {
        try PingModules.files(target).flatMap { file in
            let text = try String(contentsOfFile: PingModules.sources + "/" + file, encoding: .utf8)
            return text.split(separator: "\n").compactMap { line -> (String, String)? in
                guard line.hasPrefix("import ") else { return nil }
                return (file, String(line.dropFirst("import ".count)))
            }
        }
    }

    @Test("layers-classified: every module of Sources/ is either below the use cases or one of them")
    func everyModuleClassified() {
        #expect(Set(PingModules.library) == Set(PingModules.belowFlows + PingModules.flowsAndCommands))
        #expect(Set(Self.allowed.keys) == Set(PingModules.flowsAndCommands))
    }

    @Test("use-case-imports: each use-case and command target imports only the use cases under it")
    func useCasesImportOnlyWhatIsUnderThem() throws {
        let upper = Set(PingModules.flowsAndCommands)
        for (target, allowed) in Self.allowed {
            for (file, module) in try Self.imports(target) where upper.contains(module) {
                #expect(allowed.contains(module), "\(file) imports \(module), which \(target) must not use")
            }
        }
    }

    @Test("lower-layers-import-no-use-case: nothing below the use cases imports one of them or a command")
    func lowerLayersImportNoUseCase() throws {
        let upper = Set(PingModules.flowsAndCommands)
        for target in PingModules.belowFlows {
            for (file, module) in try Self.imports(target) {
                #expect(!upper.contains(module), "\(file) imports \(module)")
            }
        }
    }
}
