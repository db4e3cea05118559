import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The installed layout (`make install`): `T/bin/pingcli` the front, and `T/libexec/pingcli/pingcli` the
/// full binary, here a symbolic link to `Tests/Support/front-full-recording`, which writes a line to
/// `T/fell-through` and then runs the debug build, so a test knows whether the front answered or handed
/// the command on. The front is a hard link to what `make front-binary` built, not a symbolic link: it
/// finds the full binary from its own path (/proc/self/exe), which a hard link keeps and a symbolic link
/// would resolve; and not a copy, as no test writes an executable (docs/testing.md). So T lies beside
/// it, in `.build/front-tests`, on the same file system; it is removed when the layout goes.
final class FrontLayout: Sendable {
    /// What `make front-binary` builds (`make test` builds it first).
    static let builtFront = DebianTools.repositoryRoot + "/.build/front/pingcli"

    /// What `T/libexec/pingcli/pingcli` is.
    enum Full {
        /// The recording script.
        case script
        /// A hard link to the debug build, whose /proc/self/exe is then the libexec path.
        case hardLink
        /// Nothing: the front cannot run the full binary.
        case missing
    }

    let root: String
    var front: String { root + "/bin/pingcli" }
    var full: String { root + "/libexec/pingcli/pingcli" }
    var marker: String { root + "/fell-through" }

    init(full kind: Full = .script) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.builtFront) else { throw FrontLayoutMissing() }
        root = DebianTools.repositoryRoot + "/.build/front-tests/" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: root + "/bin", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/libexec/pingcli", withIntermediateDirectories: true)
        try FileManager.default.linkItem(atPath: Self.builtFront, toPath: front)
        switch kind {
        case .script:
            try FileManager.default.createSymbolicLink(atPath: full, withDestinationPath: Locations.support + "/front-full-recording")
            try FileManager.default.createSymbolicLink(
                atPath: root + "/libexec/pingcli/debug-pingcli", withDestinationPath: Locations.pingcli)
        case .hardLink: try FileManager.default.linkItem(atPath: Locations.pingcli, toPath: full)
        case .missing: break
        }
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// How many times the front handed a command to the full binary.
    var fellThrough: Int { (readText(marker) ?? "").split(separator: "\n").count }
}

struct FrontLayoutMissing: Error, CustomStringConvertible {
    var description: String {
        "\(FrontLayout.builtFront) is missing: run make front-binary (make test builds it) before swift test"
    }
}

/// Profiles signed in once to one emulator that serves every front test of the run (it is never
/// stopped: the process ends with it); each case copies their files into a sandbox of its own instead of
/// signing in again.
struct FrontTemplate: Sendable {
    let emulator: Emulator
    let files: TreeSnapshot
    /// The line `token --raw` prints for each profile.
    let tokenLines: [String: String]

    static let shared: Result<FrontTemplate, FrontTemplateFailure> = Result { try make() }.mapError {
        $0 as? FrontTemplateFailure ?? FrontTemplateFailure(description: "\($0)")
    }

    /// `default` and `work` (a person's), `dpop` (`login --dpop`), `forever` (a token the provider gave
    /// no lifetime) and `machine` (client credentials, on a second emulator stopped once it signed in).
    static func make() throws -> FrontTemplate {
        let emulator = try startEmulator()
        let sandbox = Sandbox()
        var lines: [String: String] = [:]
        func login(_ profile: String, _ extra: [String] = [], on server: Emulator, environment: [String: String] = [:]) throws {
            let run = sandbox.login(server, ["--profile", profile] + extra, environment: environment)
            guard run.status == 0 else { throw FrontTemplateFailure(description: "login --profile \(profile) failed: \(run)") }
            lines[profile] = server.newestTokenLine
        }
        try login("default", on: emulator)
        try login("work", on: emulator)
        try login("dpop", ["--dpop"], on: emulator)
        emulator.faults.tokenResponseOverrides = ["expires_in": .null]
        try login("forever", on: emulator)
        emulator.faults = Faults()
        let machine = try confidentialEmulator(method: "client_secret_basic")
        defer { machine.stop() }
        try login("machine", ["--client-credentials"], on: machine, environment: ["PINGCLI_CLIENT_SECRET": confidentialSecret])
        // No current profile: the cases that want one write it.
        try? FileManager.default.removeItem(atPath: sandbox.root + "/config/pingcli/current-profile")
        return FrontTemplate(emulator: emulator, files: TreeSnapshot(of: sandbox.root), tokenLines: lines)
    }
}

struct FrontTemplateFailure: Error, CustomStringConvertible {
    var description: String
}

/// A case's sandbox with the template's files in it, and the paths a case changes.
struct FrontState {
    let sandbox: Sandbox
    let template: FrontTemplate

    var root: String { sandbox.root }
    var configDirectory: String { root + "/config/pingcli" }
    var dataDirectory: String { root + "/data/pingcli" }
    func profileDirectory(_ name: String = "default") -> String { configDirectory + "/profiles/" + name }
    func file(_ name: String, of profile: String = "default") -> String { profileDirectory(profile) + "/" + name }
    var keyFile: String { dataDirectory + "/key" }
    func generationFile(_ profile: String = "default") -> String { dataDirectory + "/generations/" + profile }

    /// Runs the debug build directly, as a step of a case's preparation (not one of the compared runs).
    func runFull(_ arguments: [String], environment: [String: String] = [:]) -> CLIRun {
        runProcess(Locations.pingcli, arguments, environment: sandbox.environment.merging(environment) { $1 }, timeout: 60)
    }

    /// Signs the default profile in again (a grant of its own, for a case that refreshes: the template's
    /// refresh token is every case's, and the emulator rotates it) and returns what token --raw prints.
    @discardableResult
    func signInAgain() throws -> String {
        let login = sandbox.login(template.emulator, ["--profile", "default"])
        try #require(login.status == 0, "\(login)")
        let token = runFull(["token", "--raw"])
        try #require(token.status == 0, "\(token)")
        return token.stdout
    }

    /// Refreshes the default profile's token (`--min-ttl` beyond its lifetime) and returns the new line.
    func refresh() throws -> String {
        let run = runFull(["token", "--raw", "--min-ttl", "7200"])
        try #require(run.status == 0 && !run.stdout.isEmpty, "\(run)")
        return run.stdout
    }

    /// What both runs must print on stdout, when it is not one of the template's tokens.
    func expectStdout(_ text: String) throws { try writeBytes(root + "/expected-stdout", Array(text.utf8)) }

    /// Flips one bit of the byte at `offset` (negative: from the end).
    func flip(_ path: String, at offset: Int) throws {
        var bytes = try #require(readBytes(path), "\(path)")
        bytes[offset < 0 ? bytes.count + offset : offset] ^= 1
        try writeBytes(path, bytes)
    }

    /// Moves the config directory to `HOME/.config` (XDG_CONFIG_HOME is then unset by the case).
    func moveConfigHome(to path: String? = nil) throws {
        let target = path ?? root + "/home/.config"
        try FileManager.default.moveItem(atPath: root + "/config", toPath: target)
        chmod(target, 0o700)
    }
}

/// One state and one command, run once through the front and once through the full binary.
struct FrontCase: Sendable, CustomTestStringConvertible {
    enum Outcome: Sendable {
        /// The front prints the token itself.
        case answered
        /// The front runs the full binary.
        case fellThrough
    }

    var name: String
    var outcome: Outcome
    var arguments = ["token", "--raw"]
    /// Variables set (a value) or removed (nil) in the sandbox's environment.
    var environment: [String: String?] = [:]
    /// The full binary's exit status this state must give.
    var status: Int32 = 0
    /// The profile whose token stdout must be; nil: whatever the full binary prints.
    var prints: String? = "default"
    /// Starts from an empty sandbox rather than the template's signed-in profiles.
    var signedIn = true
    /// Another user (`setpriv`) who owns the files and runs both; nil: this test's user.
    var user: uid_t? = nil
    var prepare: @Sendable (FrontState) throws -> Void = { _ in }

    var testDescription: String { name }

    /// The case with the files given to `user`, who runs both commands.
    func run(by user: uid_t) -> FrontCase {
        var copy = self
        copy.user = user
        return copy
    }

    init(
        _ name: String, _ outcome: Outcome, arguments: [String] = ["token", "--raw"], environment: [String: String?] = [:],
        status: Int32 = 0, prints: String? = "default", signedIn: Bool = true,
        prepare: @escaping @Sendable (FrontState) throws -> Void = { _ in }
    ) {
        (self.name, self.outcome, self.arguments, self.environment) = (name, outcome, arguments, environment)
        (self.status, self.prints, self.signedIn, self.prepare) = (status, status == 0 ? prints : nil, signedIn, prepare)
    }

    /// The sandbox's environment with this case's changes.
    func environment(_ sandbox: Sandbox) -> [String: String] {
        var result = sandbox.environment
        for (name, value) in environment { result[name] = value }
        return result
    }
}

/// Runs `testCase` in a sandbox of its own, through the front layout and through the full binary from
/// the same files, and asserts the same exit status, stdout, stderr and changes to the files, and that
/// the front answered or handed on as the case says.
func expectSameAsFull(_ testCase: FrontCase, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let template = try FrontTemplate.shared.get()
    let sandbox = Sandbox()
    let layout = try FrontLayout()
    if testCase.signedIn { try template.files.restore(into: sandbox.root) }
    if let user = testCase.user {
        chownTree(sandbox.root, to: user)
        chown(layout.root, user, user)  // where the recording full binary writes
    }
    let state = FrontState(sandbox: sandbox, template: template)
    try testCase.prepare(state)
    let (viaFront, direct) = try expectSameRuns(
        testCase.arguments, environment: testCase.environment(sandbox), layout: layout, sandbox: sandbox, user: testCase.user,
        sourceLocation: sourceLocation)
    let handedOn = testCase.outcome == .fellThrough
    #expect(
        layout.fellThrough == (handedOn ? 1 : 0), "fell through \(layout.fellThrough) times: \(viaFront)", sourceLocation: sourceLocation)
    #expect(direct.status == testCase.status, "\(direct)", sourceLocation: sourceLocation)
    if let expected = readText(sandbox.root + "/expected-stdout") {
        #expect(direct.stdout == expected, "\(direct)", sourceLocation: sourceLocation)
    } else if let profile = testCase.prints {
        #expect(direct.stdout == template.tokenLines[profile], "\(direct)", sourceLocation: sourceLocation)
    }
}

/// The same command through the front and through the full binary (as `user`, when given), from the same
/// files (put back in between): the same exit status, stdout, stderr and the same files changed. Handed on, the full binary
/// runs as the debug build with the same arguments, so nothing needs normalising. Returns both runs.
@discardableResult
func expectSameRuns(
    _ arguments: [String], environment: [String: String], layout: FrontLayout, sandbox: Sandbox, user: uid_t? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> (CLIRun, CLIRun) {
    func run(_ program: String) -> CLIRun {
        guard let user else { return runProcess(program, arguments, environment: environment, timeout: 60) }
        let setpriv = ["--reuid=\(user)", "--regid=\(user)", "--clear-groups", program]
        return runProcess("/usr/bin/setpriv", setpriv + arguments, environment: environment, timeout: 60)
    }
    let before = TreeSnapshot(of: sandbox.root)
    let viaFront = run(layout.front)
    let afterFront = TreeSnapshot(of: sandbox.root)
    try before.restore(into: sandbox.root)
    #expect(TreeSnapshot(of: sandbox.root) == before, "the files were put back", sourceLocation: sourceLocation)
    let direct = run(Locations.pingcli)
    let afterFull = TreeSnapshot(of: sandbox.root)
    #expect(viaFront.status == direct.status, "front: \(viaFront)\nfull: \(direct)", sourceLocation: sourceLocation)
    #expect(viaFront.stdout == direct.stdout, "front: \(viaFront)\nfull: \(direct)", sourceLocation: sourceLocation)
    #expect(viaFront.stderr == direct.stderr, "front: \(viaFront)\nfull: \(direct)", sourceLocation: sourceLocation)
    let (frontChanges, fullChanges) = (afterFront.changes(from: before), afterFull.changes(from: before))
    #expect(
        frontChanges == fullChanges, "files changed: front \(frontChanges.sorted()), full \(fullChanges.sorted())",
        sourceLocation: sourceLocation)
    // What both runs changed the same way (a file removed, a mode set, a record written): the same now.
    for path in frontChanges.intersection(fullChanges) {
        #expect(afterFront.entries[path]?.mode == afterFull.entries[path]?.mode, "\(path)", sourceLocation: sourceLocation)
    }
    return (viaFront, direct)
}
