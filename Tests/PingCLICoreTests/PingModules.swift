import Foundation

/// pingcli's own modules, read from `Sources/` (every folder but the C libraries' and the emulator's), so
/// a new target is in every architecture test without being listed in each.
enum PingModules {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources")
        .standardizedFileURL.path

    /// The layers under the use cases: typed facts, no advice (docs/architecture.md).
    static let belowFlows = [
        "PingBase", "PingCrypto", "PingHTTP", "PingOTP", "PingPlatform", "PingTerminal", "PingOAuth", "PingAM", "PingState",
        "PingAuthenticators", "PingRedirect", "PingAWS", "PingWebAuthn", "PingFIDO2",
    ]
    /// The use cases and the commands: where failures are worded.
    static let flowsAndCommands = [
        "PingFlowCore", "PingSession", "PingSignIn", "PingJourney", "PingCloud", "PingCommandLine", "PingLogin", "PingIntegrations",
        "PingCommands",
    ]

    /// Every library target of the product (not the fuzz entry points).
    static var library: [String] {
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: sources)) ?? []
        return folders.filter { $0.hasPrefix("Ping") && $0 != "PingFuzz" }.sorted()
    }

    /// The product's modules and its executable.
    static var product: [String] { library + ["pingcli"] }

    /// The Swift files of `target`, as paths under `Sources/`.
    static func files(_ target: String) throws -> [String] {
        try FileManager.default.subpathsOfDirectory(atPath: sources + "/" + target).filter { $0.hasSuffix(".swift") }.map {
            target + "/" + $0
        }.sorted()
    }
}
