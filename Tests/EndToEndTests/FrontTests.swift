import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The front (`Sources/pingcli-front`, what `PREFIX/bin/pingcli` is once installed) beside the full
/// binary: each case runs the same command in the same files through both, and the answers must be the
/// same, whether the front printed the token itself or handed the command to the full binary.
@Suite("the front: answered by the front")
struct FrontAnsweredTests {
    static let cases: [FrontCase] = [
        FrontCase("token --raw", .answered),
        FrontCase("token with stdout a pipe (raw, as the full binary prints it there)", .answered, arguments: ["token"]),
        FrontCase("--profile NAME before the command", .answered, arguments: ["--profile", "work", "token", "--raw"], prints: "work"),
        FrontCase("--profile NAME after the command", .answered, arguments: ["token", "--raw", "--profile", "work"], prints: "work"),
        FrontCase("--profile=NAME before the command", .answered, arguments: ["--profile=work", "token", "--raw"], prints: "work"),
        FrontCase("--profile=NAME", .answered, arguments: ["token", "--raw", "--profile=work"], prints: "work"),
        FrontCase("a DPoP-bound token (login --dpop)", .answered, arguments: ["token", "--raw", "--profile", "dpop"], prints: "dpop"),
        FrontCase(
            "a token the provider gave no lifetime", .answered, arguments: ["token", "--raw", "--profile", "forever"], prints: "forever"),
        FrontCase(
            "a machine's token (client credentials, with its secret in the cache)", .answered,
            arguments: ["token", "--raw", "--profile", "machine"], prints: "machine"),
        FrontCase("PINGCLI_PROFILE=NAME", .answered, environment: ["PINGCLI_PROFILE": "work"], prints: "work"),
        FrontCase("a current profile set by profiles use", .answered, prints: "work") { state in
            #expect(state.runFull(["profiles", "use", "work"]).status == 0)
        },
        FrontCase("--profile NAME over the current profile", .answered, arguments: ["token", "--raw", "--profile", "default"]) { state in
            #expect(state.runFull(["profiles", "use", "work"]).status == 0)
        },
        FrontCase("PINGCLI_PROFILE over the current profile", .answered, environment: ["PINGCLI_PROFILE": "default"]) { state in
            #expect(state.runFull(["profiles", "use", "work"]).status == 0)
        },
        FrontCase(
            "HOME unset, the XDG directories set (the front needs no HOME then, nor does the full binary)", .answered,
            environment: ["HOME": nil]),
        FrontCase("PINGCLI_KEY_STORE=file", .answered, environment: ["PINGCLI_KEY_STORE": "file"]),
        FrontCase(
            "unrelated variables (KUBERNETES_EXEC_INFO, CURL_CA_BUNDLE, NO_COLOR, TERM)", .answered,
            environment: [
                "KUBERNETES_EXEC_INFO": #"{"apiVersion":"client.authentication.k8s.io/v1beta1","spec":{"interactive":false}}"#,
                "CURL_CA_BUNDLE": "/nonexistent/ca.pem", "NO_COLOR": "1", "TERM": "xterm-256color",
            ]),
        FrontCase(
            "PINGCLI_ settings a plain token never reads on a hit (the sign-in's, the browser, git's user name, the device key's algorithm, the helpers' sign-in)",
            .answered,
            environment: [
                "PINGCLI_BROWSER": "/nonexistent/browser %s", "PINGCLI_ISSUER": "https://elsewhere.example/as",
                "PINGCLI_CLIENT_ID": "other",
                "PINGCLI_CLIENT_SECRET": "not-used", "PINGCLI_CA_FILE": "/nonexistent/ca.pem", "PINGCLI_GIT_USERNAME": "someone",
                "PINGCLI_DEVICE_KEY_ALGORITHM": "RS512", "PINGCLI_HELPER_LOGIN": "never",
            ]),
        FrontCase("~/.config without XDG_CONFIG_HOME", .answered, environment: ["XDG_CONFIG_HOME": nil]) { try $0.moveConfigHome() },
        FrontCase(
            "a relative XDG_CONFIG_HOME is ignored for ~/.config, as the full binary ignores it", .answered,
            environment: ["XDG_CONFIG_HOME": "config"]
        ) { try $0.moveConfigHome() },
        FrontCase("~/.local/share without XDG_DATA_HOME", .answered, environment: ["XDG_DATA_HOME": nil]) { state in
            try FileManager.default.createDirectory(atPath: state.root + "/home/.local", withIntermediateDirectories: false)
            chmod(state.root + "/home/.local", 0o755)
            try FileManager.default.moveItem(atPath: state.root + "/data", toPath: state.root + "/home/.local/share")
        },
        FrontCase("PINGCLI_KEY_STORE=file with a keyring-item beside the key file", .answered, environment: ["PINGCLI_KEY_STORE": "file"]) {
            try writeBytes($0.dataDirectory + "/keyring-item", Array("0123456789abcdef0123456789abcdef".utf8))
        },
        FrontCase("a current-profile without its newline", .answered, prints: "work") { state in
            try writeBytes(state.configDirectory + "/current-profile", Array("work".utf8))
        },
        FrontCase("profile.json and current-profile readable by all (0644)", .answered, prints: "work") { state in
            #expect(state.runFull(["profiles", "use", "work"]).status == 0)
            chmod(state.configDirectory + "/current-profile", 0o644)
            chmod(state.file("profile.json", of: "work"), 0o644)
        },
        FrontCase("no generation record (a profile an older pingcli wrote)", .answered) { state in
            try FileManager.default.removeItem(atPath: state.generationFile())
        },
        FrontCase("the generation record with leading zeros and no newline", .answered) { state in
            let record = try #require(readText(state.generationFile()))
            try writeBytes(state.generationFile(), Array(("00" + record.dropLast()).utf8))
        },
        FrontCase("an earlier build's state directory left beside the cache", .answered) { state in
            let legacy = state.root + "/state/pingcli/profiles/default"
            try FileManager.default.createDirectory(
                atPath: legacy, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try writeBytes(legacy + "/tokens.enc", try #require(readBytes(state.file("tokens.enc", of: "work"))))
        },
        FrontCase("XDG_CONFIG_HOME empty, the state under ~/.config", .answered, environment: ["XDG_CONFIG_HOME": ""]) {
            try $0.moveConfigHome()
        },
        FrontCase("the whole state put back from a backup (cache, summary and generation record: not rolled back)", .answered) {
            state in
            try state.expectStdout(try state.signInAgain())
            let files = [state.file("tokens.enc"), state.file("status.enc"), state.generationFile()]
            let saved = try files.map { try #require(readBytes($0)) }
            _ = try state.refresh()
            for (file, bytes) in zip(files, saved) { try writeBytes(file, bytes) }
        },
    ]

    @Test("front-answers: a plain cache hit is printed by the front itself, as the full binary prints it", arguments: cases)
    func answered(_ testCase: FrontCase) throws {
        try expectSameAsFull(testCase)
    }
}
