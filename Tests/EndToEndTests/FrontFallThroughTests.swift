import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What the front does not answer: each state and command goes to the full binary, whose answer (a
/// token, or its one-line error and exit status) is exactly what running it directly gives.
@Suite("the front: handed to the full binary")
struct FrontFallThroughTests {
    /// The status summary cannot vouch for the files: the full binary reads them (and answers).
    static let summaryCases: [FrontCase] = [
        FrontCase("status.enc missing", .fellThrough) { try FileManager.default.removeItem(atPath: $0.file("status.enc")) },
        FrontCase("status.enc truncated", .fellThrough) { state in
            let bytes = try #require(readBytes(state.file("status.enc")))
            try writeBytes(state.file("status.enc"), Array(bytes.prefix(40)))
        },
        FrontCase("status.enc with a byte flipped", .fellThrough) { try $0.flip($0.file("status.enc"), at: -5) },
        FrontCase("status.enc copied from another profile", .fellThrough) { state in
            try writeBytes(state.file("status.enc"), try #require(readBytes(state.file("status.enc", of: "work"))))
        },
        FrontCase("status.enc with a version-2 header", .fellThrough) { try $0.flip($0.file("status.enc"), at: 4) },
        FrontCase("status.enc open to group and others", .fellThrough) { chmod($0.file("status.enc"), 0o644) },
        FrontCase("status.enc from before a refresh", .fellThrough) { state in
            try state.signInAgain()
            let old = try #require(readBytes(state.file("status.enc")))
            try state.expectStdout(try state.refresh())
            try writeBytes(state.file("status.enc"), old)
        },
        FrontCase("profile.json re-indented (its bytes changed, not what it says)", .fellThrough) { state in
            let text = try #require(readText(state.file("profile.json")))
            try writeBytes(state.file("profile.json"), Array(text.replacingOccurrences(of: "\n  ", with: "\n    ").utf8))
        },
        FrontCase("the generation record padded with a space (the full binary trims it)", .fellThrough) { state in
            let record = try #require(readText(state.generationFile()))
            try writeBytes(state.generationFile(), Array((" " + record).utf8))
        },
        FrontCase("~/.config a symbolic link to a directory elsewhere", .fellThrough, environment: ["XDG_CONFIG_HOME": nil]) { state in
            try state.moveConfigHome(to: state.root + "/elsewhere")
            try FileManager.default.createSymbolicLink(atPath: state.root + "/home/.config", withDestinationPath: state.root + "/elsewhere")
        },
    ]

    /// Damaged, moved back or exposed files: the full binary's error.
    static let fileCases: [FrontCase] = [
        FrontCase("never logged in", .fellThrough, status: 4, signedIn: false),
        FrontCase("profile.json missing", .fellThrough, status: 4) { try FileManager.default.removeItem(atPath: $0.file("profile.json")) },
        FrontCase("tokens.enc missing", .fellThrough, status: 4) { try FileManager.default.removeItem(atPath: $0.file("tokens.enc")) },
        FrontCase("tokens.enc with a byte flipped (tampered)", .fellThrough, status: 4) { try $0.flip($0.file("tokens.enc"), at: -20) },
        FrontCase("tokens.enc open to group and others", .fellThrough, status: 1) { chmod($0.file("tokens.enc"), 0o640) },
        FrontCase("profile.json edited outside pingcli (another client id)", .fellThrough, status: 4) { state in
            let text = try #require(readText(state.file("profile.json")))
            try writeBytes(state.file("profile.json"), Array(text.replacingOccurrences(of: "pingcli-test", with: "another-client").utf8))
        },
        FrontCase("profile.json writable by others", .fellThrough, status: 1) { chmod($0.file("profile.json"), 0o646) },
        FrontCase("tokens.enc and status.enc put back from before a refresh (rolled back)", .fellThrough, status: 4) { state in
            try state.signInAgain()
            let files = [state.file("tokens.enc"), state.file("status.enc")]
            let saved = try files.map { try #require(readBytes($0)) }
            _ = try state.refresh()
            for (file, bytes) in zip(files, saved) { try writeBytes(file, bytes) }
        },
        FrontCase("the generation record damaged", .fellThrough, status: 1) { try writeBytes($0.generationFile(), Array("1x\n".utf8)) },
        FrontCase("the generation record ahead of the cache", .fellThrough, status: 4) {
            try writeBytes($0.generationFile(), Array("999\n".utf8))
        },
        FrontCase("the key file missing", .fellThrough, status: 4) { try FileManager.default.removeItem(atPath: $0.keyFile) },
        FrontCase("a current profile that does not exist", .fellThrough, status: 4) { state in
            try writeBytes(state.configDirectory + "/current-profile", Array("gone\n".utf8))
        },
        FrontCase("the key file open to group and others", .fellThrough, status: 1) { chmod($0.keyFile, 0o644) },
        FrontCase("the key file of the wrong length", .fellThrough, status: 4) { state in
            try writeBytes(state.keyFile, Array((try #require(readBytes(state.keyFile))).dropLast()))
        },
        FrontCase("a keyring-item beside the key file", .fellThrough, status: 1) { state in
            try writeBytes(state.dataDirectory + "/keyring-item", Array("0123456789abcdef0123456789abcdef".utf8))
        },
        FrontCase("the profile's directory writable by its group", .fellThrough, status: 1) { chmod($0.profileDirectory(), 0o770) },
        FrontCase("~/.config writable by its group", .fellThrough, environment: ["XDG_CONFIG_HOME": nil], status: 1) { state in
            try state.moveConfigHome()
            chmod(state.root + "/home/.config", 0o770)
        },
        FrontCase("current-profile damaged", .fellThrough, status: 1) { state in
            try writeBytes(state.configDirectory + "/current-profile", Array("not a name!\n".utf8))
        },
        FrontCase("after logout (the signed-out record)", .fellThrough, status: 4) { state in
            #expect(state.runFull(["logout"]).status == 0)
        },
    ]

    /// The command line and the environment: anything but a plain `token --raw` is the full binary's.
    static let requestCases: [FrontCase] = [
        FrontCase("PINGCLI_PROFILE not a profile name", .fellThrough, environment: ["PINGCLI_PROFILE": ".hidden"], status: 2),
        FrontCase("PINGCLI_KEY_COMMAND set", .fellThrough, environment: ["PINGCLI_KEY_COMMAND": "false"], status: 1),
        FrontCase("PINGCLI_HTTP_TIMEOUT=abc", .fellThrough, environment: ["PINGCLI_HTTP_TIMEOUT": "abc"], status: 2),
        FrontCase(
            "PINGCLI_HELPER_LOGIN=sometimes with another setting the front does not know", .fellThrough,
            environment: ["PINGCLI_HELPER_LOGIN": "sometimes", "PINGCLI_UNKNOWN": "1"], status: 0),
        FrontCase("PINGCLI_KEY_STORE=vault", .fellThrough, environment: ["PINGCLI_KEY_STORE": "vault"], status: 2),
        FrontCase("PINGCLI_KEY_STORE=keyring", .fellThrough, environment: ["PINGCLI_KEY_STORE": "keyring"], status: 1),
        FrontCase("--profile without a value", .fellThrough, arguments: ["token", "--raw", "--profile"], status: 2),
        FrontCase("--profile twice", .fellThrough, arguments: ["token", "--raw", "--profile", "work", "--profile", "default"], status: 2),
        FrontCase("--raw twice", .fellThrough, arguments: ["token", "--raw", "--raw"]),
        FrontCase("token --raw --verbose", .fellThrough, arguments: ["token", "--raw", "--verbose"]),
        FrontCase("token --format json", .fellThrough, arguments: ["token", "--format", "json"], prints: nil),
        FrontCase("token --id-token", .fellThrough, arguments: ["token", "--raw", "--id-token"], prints: nil),
        FrontCase("token --min-ttl 60", .fellThrough, arguments: ["token", "--raw", "--min-ttl", "60"]),
        FrontCase("token --help", .fellThrough, arguments: ["token", "--help"], prints: nil),
        FrontCase("status --json", .fellThrough, arguments: ["status", "--json"], prints: nil),
        FrontCase("--version", .fellThrough, arguments: ["--version"], prints: nil),
        FrontCase(
            "HOME and every XDG directory unset", .fellThrough,
            environment: ["HOME": nil, "XDG_CONFIG_HOME": nil, "XDG_DATA_HOME": nil, "XDG_STATE_HOME": nil], status: 1),
        FrontCase(
            "XDG_CONFIG_HOME relative, the state only where it names", .fellThrough, environment: ["XDG_CONFIG_HOME": "config"], status: 4),
    ]

    @Test("front-falls-through: a summary that cannot vouch for the files; the full binary reads them", arguments: summaryCases)
    func summary(_ testCase: FrontCase) throws {
        try expectSameAsFull(testCase)
    }

    @Test("front-falls-through: damaged, exposed or rolled-back files get the full binary's error", arguments: fileCases)
    func files(_ testCase: FrontCase) throws {
        try expectSameAsFull(testCase)
    }

    @Test("front-falls-through: any other command, option or PINGCLI_ setting is the full binary's", arguments: requestCases)
    func request(_ testCase: FrontCase) throws {
        try expectSameAsFull(testCase)
    }
}
