import Foundation
import Testing

@testable import PingFlowCore
@testable import PingHTTP
@testable import PingJourney
@testable import PingLogin
@testable import PingOAuth
@testable import PingPlatform
@testable import PingSession
@testable import PingSignIn
@testable import PingState
@testable import PingTerminal

/// Each use case takes the few capabilities it needs, wired once in the commands layer
/// (docs/architecture.md, "Capabilities"): the aggregate a command runs with (`CommandContext`, the
/// commands layer's factory) never reaches a use case, and what each use case's context holds is
/// written down here, so a browser or a TPM that creeps into the session's context fails a test.
@Suite("capabilities: narrow contexts per use case, one factory in the commands layer")
struct CapabilityTests {
    static let useCases = ["PingFlowCore", "PingSession", "PingSignIn", "PingJourney", "PingCloud"]
    /// The commands layer's aggregate, and the one it replaced.
    static let aggregates = ["CommandContext", "FlowContext"]

    @Test("use-cases-take-no-aggregate: no use-case target names the commands layer's context")
    func useCasesNameNoAggregate() throws {
        for target in Self.useCases {
            for file in try PingModules.files(target) {
                let text = try String(contentsOfFile: PingModules.sources + "/" + file, encoding: .utf8)
                let words = Set(text.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
                for aggregate in Self.aggregates where words.contains(aggregate) {
                    Issue.record("\(file) names \(aggregate): take the use case's own context instead")
                }
            }
        }
    }

    @Test("aggregate-in-commands-layer: the factory is defined once, below every command and above every use case")
    func aggregateDefinedOnce() throws {
        let definitions = try PingModules.library.flatMap { try PingModules.files($0) }.filter { file in
            let text = try String(contentsOfFile: PingModules.sources + "/" + file, encoding: .utf8)
            return text.contains("struct CommandContext")
        }
        #expect(definitions == ["PingLogin/CommandContext.swift"])
    }

    @Test("contexts-narrow: each use case's context holds exactly its capabilities")
    func contextsHoldTheirCapabilities() {
        let context = Self.context()
        #expect(Self.fields(context.forSession) == ["store", "console", "clock", "transports"])
        #expect(Self.fields(context.forSignIn) == ["session", "browsing", "waits"])
        #expect(Self.fields(context.forJourney) == ["session", "browsing", "waits", "tpm"])
        #expect(Self.fields(context.signOff) == ["browsing", "waits"])
        #expect(Self.fields(context.transports) == ["options", "make", "dpopNonces", "console", "clock"])
        #expect(Self.fields(context.browsing) == ["launcher", "input", "inputTerminal", "verbose"])
    }

    @Test("contexts-share-one-process: every part carries the factory's DPoP nonces, input and settings")
    func partsShareTheFactorys() {
        var context = Self.context()
        context.input = 7
        context.inputIsTerminal = true
        context.verbose = true
        context.transportOptions.totalTimeout = 11
        let nonces = context.dpopNonces
        #expect(context.forSession.transports.dpopNonces === nonces)
        #expect(context.forSignIn.session.transports.dpopNonces === nonces)
        #expect(context.forJourney.session.transports.dpopNonces === nonces)
        #expect(context.forSession.transports.options.totalTimeout == 11)
        for browsing in [context.forSignIn.browsing, context.forJourney.browsing, context.signOff.browsing] {
            #expect(browsing.input == 7)
            #expect(browsing.inputTerminal.answer)
            #expect(browsing.verbose)
        }
    }

    static func fields(_ value: Any) -> [String] { Mirror(reflecting: value).children.compactMap(\.label) }

    static func context() -> CommandContext {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pingcli-capabilities").path
        let store = TokenStore(
            paths: Paths(configDirectory: root + "/config", dataDirectory: root + "/data", stateDirectory: root + "/state"))
        return CommandContext(
            store: store, console: .standard, clock: { 0 }, browser: NoBrowser(), transportOptions: TransportOptions(),
            makeTransport: { _ in NoTransport() })
    }
}

private struct NoBrowser: BrowserLauncher {
    func open(_ url: String) -> Result<any BrowserProcess, BrowserLaunchError> { .failure(BrowserLaunchError(reason: "none")) }
}

private struct NoTransport: HTTPTransport {
    func send(_ request: HTTPRequest) throws(TransportError) -> HTTPResponse { throw .unreachable("none") }
}
