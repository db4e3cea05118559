import Foundation
import PingEmulator
import Synchronization
import Testing

@testable import PingBase
@testable import PingCommands
@testable import PingFlowCore
@testable import PingHTTP
@testable import PingLogin
@testable import PingOAuth
@testable import PingPlatform
@testable import PingState
@testable import PingTerminal

/// A clock the test moves: wall-clock seconds for pingcli and the emulator alike, and a monotonic
/// count for deadlines. Nothing in this tier sleeps for time to pass: a flow that waits (the device
/// flow between polls, a lock another holds) calls `sleep`, which moves the clock at once, and a wait
/// for the browser moves it once the browser double has nothing left to do (`waitClock`).
final class TestClock: Sendable {
    private let offset = Mutex(0.0)
    /// A fixed start, so nothing depends on when the test runs.
    static let start = 1_900_000_000.0

    var now: Double { Self.start + offset.withLock { $0 } }
    var monotonic: Double { offset.withLock { $0 } }
    func advance(by seconds: Double) { offset.withLock { $0 += seconds } }

    /// This clock as pingcli's monotonic time and waits. `sleep` moves it. `poll` first looks at the
    /// descriptors without waiting; while `busy` (a browser double still visiting) it waits for them
    /// in real time, a little at a time, without moving the clock; once nothing is busy, nothing can
    /// arrive that is not already there, so the whole wait passes at once on this clock.
    func waitClock(busy: @escaping @Sendable () -> Bool = { false }) -> WaitClock {
        WaitClock(
            now: { self.monotonic }, sleep: { self.advance(by: $0) },
            poll: { descriptors, seconds in
                let ready = WaitClock.pollSeconds(&descriptors, 0)
                guard ready == 0 else { return ready }
                if busy() { return WaitClock.pollSeconds(&descriptors, min(seconds, 0.05)) }
                self.advance(by: seconds)
                return 0
            })
    }
}

/// What a flow wrote, line by line.
final class CapturedConsole: Sendable {
    private let streams = Mutex((out: "", err: ""))
    var out: String { streams.withLock { $0.out } }
    var err: String { streams.withLock { $0.err } }

    func console(errorIsTerminal: Bool = false) -> Console {
        Console(
            writeOut: { text in self.streams.withLock { $0.out += text } },
            writeErr: { text in self.streams.withLock { $0.err += text } }, errorIsTerminal: errorIsTerminal)
    }
}

/// A value shared between threads (Mutex itself cannot be copied into closures and structs).
final class Shared<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    init(_ value: Value) { storage = Mutex(value) }
    var value: Value {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}

/// The emulator as the transport: each request is answered by a direct call (`Emulator.respond`), no socket.
/// `down` makes every request fail as an unreachable server does.
struct EmulatorTransport: HTTPTransport {
    let emulator: Emulator
    let down: Shared<Bool>
    /// More providers, each answering the URLs under its own origin (a second issuer).
    var others: [Emulator] = []

    func send(_ request: HTTPRequest) throws(TransportError) -> PingHTTP.HTTPResponse {
        try request.checkSafeToSend()
        let emulator = others.first { request.url.hasPrefix($0.baseURL + "/") } ?? emulator
        if down.value { throw .unreachable("Failed to connect to 127.0.0.1 port \(emulator.port): Connection refused") }
        let answer = emulator.respond(
            method: request.method.rawValue, url: request.url, headers: request.headers, body: request.body ?? [])
        var headers: [String: String] = [:]
        for (name, value) in answer.headers { headers[name.lowercased()] = value }
        return PingHTTP.HTTPResponse(status: answer.status, headers: headers, body: answer.body)
    }
}

/// A browser double. It records every URL it is asked to open; `failure` makes opening fail; otherwise it
/// acts on a thread as a browser does: it follows redirects through the emulator (a direct call) and to
/// pingcli's loopback listener (a real HTTP request), and confirms PingFederate's sign-off prompt unless
/// `confirmLogout` is false.
final class RecordingBrowser: BrowserLauncher, Sendable {
    let emulator: Emulator?
    let failure: String?
    let confirmLogout: Bool
    /// Whether it visits what it opens (false: it only records the URL, like `record-url`).
    let visits: Bool
    /// Runs on the browser's thread before each visit, while the browser counts as busy (something
    /// that happens while the person is at the provider's page).
    let beforeVisit: (@Sendable () -> Void)?
    private let state = Mutex((opened: [String](), visited: [String](), lastPage: "", visiting: 0))
    private let visiting = DispatchGroup()

    init(
        emulator: Emulator?, failure: String? = nil, visits: Bool = true, confirmLogout: Bool = true,
        beforeVisit: (@Sendable () -> Void)? = nil
    ) {
        self.emulator = emulator
        self.beforeVisit = beforeVisit
        self.failure = failure
        self.visits = visits
        self.confirmLogout = confirmLogout
    }

    var opened: [String] { state.withLock { $0.opened } }
    var visited: [String] { state.withLock { $0.visited } }
    var lastPage: String { state.withLock { $0.lastPage } }
    /// Whether a visit is under way (a request of the browser's may still reach pingcli).
    var isBusy: Bool { state.withLock { $0.visiting > 0 } }

    func open(_ url: String) -> Result<any BrowserProcess, BrowserLaunchError> {
        state.withLock { $0.opened.append(url) }
        if let failure { return .failure(BrowserLaunchError(reason: failure)) }
        let done = Shared<Int32?>(nil)
        if visits {
            visiting.enter()
            state.withLock { $0.visiting += 1 }
            Thread { [self] in
                beforeVisit?()
                visit(url)
                done.value = 0
                state.withLock { $0.visiting -= 1 }
                visiting.leave()
            }.start()
        } else {
            done.value = 0
        }
        return .success(FinishedLauncher(done: done))
    }

    /// Waits for every visit to end (the browser has read its last page); true unless that took a minute.
    func settle() -> Bool { visiting.wait(timeout: .now() + 60) == .success }

    private func visit(_ start: String) {
        var next: (method: HTTPRequest.Method, url: String, body: [UInt8]?)? = (.get, start, nil)
        var hops = 0
        while let (method, url, body) = next, hops < 20 {
            hops += 1
            next = nil
            state.withLock { $0.visited.append(url) }
            guard let response = fetch(method, url, body) else { return }
            let page = String(decoding: response.body, as: UTF8.self)
            state.withLock { $0.lastPage = page }
            if (300..<400).contains(response.status), let location = response.headers["location"] {
                next = (.get, location.hasPrefix("/") ? origin(of: url) + location : location, nil)
            } else if confirmLogout, page.contains("id=\"emulator-logout-confirm\""), let action = formAction(page, url),
                let request = hiddenValue("logout_request", in: page)
            {
                next = (.post, action, Array(FormEncoding.encode([("logout_request", request)]).utf8))
            }
        }
    }

    private func fetch(_ method: HTTPRequest.Method, _ url: String, _ body: [UInt8]?) -> PingHTTP.HTTPResponse? {
        var request = HTTPRequest(method: method, url: url, body: body)
        if body != nil { request.headers = [("Content-Type", "application/x-www-form-urlencoded")] }
        if let emulator, url.hasPrefix(emulator.baseURL) {
            return try? EmulatorTransport(emulator: emulator, down: Shared(false)).send(request)
        }
        return try? CurlTransport(options: TransportOptions()).send(request)
    }

    private func origin(of url: String) -> String {
        let scheme = url.prefix { $0 != ":" }
        let rest = url.dropFirst(scheme.count + 3)
        return scheme + "://" + rest.prefix { $0 != "/" && $0 != "?" }
    }

    private func formAction(_ page: String, _ url: String) -> String? {
        guard let match = page.firstMatch(of: /<form[^>]*action="([^"]*)"/) else { return nil }
        let action = String(match.1).replacingOccurrences(of: "&amp;", with: "&")
        return action.hasPrefix("/") ? origin(of: url) + action : action
    }

    private func hiddenValue(_ name: String, in page: String) -> String? {
        guard let range = page.range(of: "name=\"\(name)\" value=\"") else { return nil }
        return String(page[range.upperBound...].prefix { $0 != "\"" })
    }
}

/// A launcher that has handed the URL over.
final class FinishedLauncher: BrowserProcess, Sendable {
    let done: Shared<Int32?>
    init(done: Shared<Int32?>) { self.done = done }
    func exitStatus() -> Int32? { done.value }
}

/// What one in-process command produced.
struct FlowRun: CustomStringConvertible {
    var status: Int32
    var stdout: String
    var stderr: String
    /// The rule of the error that ended the command (`PingCLIError.rule`); nil on success or where none is named.
    var rule: Rule? = nil
    var description: String { "exit \(status)\(rule.map { " (\($0))" } ?? "")\nstdout: \(stdout)\nstderr: \(stderr)" }
    /// The last line on stderr (the error that ended the run).
    var lastErrorLine: String { String(stderr.split(separator: "\n").last ?? "") }
}

/// A throw-away configuration and data directory, an emulator answering in-process on the test's clock,
/// and the `CommandContext` that wires them to pingcli: the in-process counterpart of `Sandbox`.
final class FlowHarness: @unchecked Sendable {
    let root: String
    let clock = TestClock()
    let emulator: Emulator
    let network = Shared(false)
    var browser: RecordingBrowser
    var lockTimeout: Double = 40
    var hintAfter: Double = 20
    var errorIsTerminal = false
    var inputIsTerminal = false
    var input: Int32 = 0
    /// What `CommandContext.openTerminal` opens (a duplicate of it, which the flow closes); nil: no terminal,
    /// whatever terminal the test runner has.
    var terminal: Int32? = nil
    /// Providers beside `emulator` (`addEmulator`), reached by their own origins.
    var otherEmulators: [Emulator] = []

    init(_ configure: (inout EmulatorConfiguration) -> Void = { _ in }) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("pingcli-flow-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        var configuration = EmulatorConfiguration()
        configure(&configuration)
        let clock = clock
        configuration.clock = { clock.now }
        emulator = try Emulator(configuration: configuration)
        browser = RecordingBrowser(emulator: emulator)
    }

    deinit {
        emulator.stop()
        for other in otherEmulators { other.stop() }
        try? FileManager.default.removeItem(atPath: root)
    }

    var paths: Paths {
        Paths(configDirectory: root + "/config/pingcli", dataDirectory: root + "/data/pingcli", stateDirectory: root + "/state/pingcli")
    }
    /// The default profile's directory: its settings (`profile.json`) and beside them its state (cache,
    /// lock, refresh record, JWK Set); `stateDirectory` names the same place where a test means the state.
    var profileDirectory: String { root + "/config/pingcli/profiles/default" }
    var stateDirectory: String { profileDirectory }
    /// Where the builds of one earlier round kept the state: under XDG_STATE_HOME.
    var legacyStateDirectory: String { root + "/state/pingcli/profiles/default" }
    /// The generation recorded for the default profile, beside the key.
    var generationFile: String { root + "/data/pingcli/generations/default" }
    /// Whether the default profile's cache holds no tokens: no file, or the sealed, empty record
    /// (format 5, kind 1) a logout leaves.
    var holdsNoTokens: Bool {
        guard let data = FileManager.default.contents(atPath: stateDirectory + "/tokens.enc") else { return true }
        return data.count > 5 && data[4] == 5 && data[5] == 1
    }

    /// A second provider on the test's clock, reached by its own origin (the browser double visits it
    /// over its socket).
    func addEmulator(_ configure: (inout EmulatorConfiguration) -> Void = { _ in }) throws -> Emulator {
        var configuration = EmulatorConfiguration()
        configure(&configuration)
        let clock = clock
        configuration.clock = { clock.now }
        let other = try Emulator(configuration: configuration)
        other.start()
        otherEmulators.append(other)
        return other
    }

    /// Makes every request fail as if the server were down (`true`) or answers again (`false`).
    func networkDown(_ down: Bool) { network.value = down }

    /// The context a command runs with, and the console it writes to.
    func context() throws(PingCLIError) -> (CommandContext, CapturedConsole) {
        let captured = CapturedConsole()
        var store = TokenStore(paths: paths, keySource: .file(path: paths.keyFile))  // PINGCLI_KEY_STORE=file
        store.lockTimeout = lockTimeout
        store.lockClock = clock.waitClock()
        let transport = EmulatorTransport(emulator: emulator, down: network, others: otherEmulators)
        var context = CommandContext(
            store: store, console: captured.console(errorIsTerminal: errorIsTerminal), clock: { [clock] in clock.now },
            browser: browser, transportOptions: TransportOptions(), makeTransport: { _ in transport })
        let waitClock = clock.waitClock(busy: { [browser] in browser.isBusy })
        context.waits = waitClock
        context.hintAfter = hintAfter
        context.inputIsTerminal = inputIsTerminal
        context.input = input
        context.openTerminal = { [terminal] in terminal.map { dup($0) } }
        return (context, captured)
    }

    /// Runs one pingcli command in this process, as `pingcli ARGUMENTS` would (`PingCLI.run`), and keeps
    /// the rule of the error that ended it.
    func run(_ arguments: [String], environment: [String: String] = [:]) -> FlowRun {
        let context: CommandContext
        let captured: CapturedConsole
        do throws(PingCLIError) {
            (context, captured) = try self.context()
        } catch {
            return FlowRun(status: error.status.rawValue, stdout: "", stderr: "pingcli: \(error.message)\n", rule: error.rule)
        }
        do throws(PingCLIError) {
            try PingCLI.dispatch(arguments, environment: Environment(environment), context: context)
            return FlowRun(status: 0, stdout: captured.out, stderr: captured.err)
        } catch {
            context.console.err("pingcli: \(error.message)")  // one line, as PingCLI.run reports it
            return FlowRun(status: error.status.rawValue, stdout: captured.out, stderr: captured.err, rule: error.rule)
        }
    }

    /// `pingcli login` against the emulator, through the browser double.
    @discardableResult
    func login(_ extra: [String] = []) -> FlowRun {
        run(["login", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--timeout", "60"] + extra)
    }

    /// The refresh record beside the cache, as JSON.
    var refreshState: [String: Any]? {
        guard let data = FileManager.default.contents(atPath: stateDirectory + "/refresh.state") else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }
}

extension Emulator {
    /// The newest access token with a newline, as `token --raw` prints it.
    var newestTokenLine: String { (issuedAccessTokens.last ?? "") + "\n" }

    /// Requests that used the refresh grant.
    var refreshes: [RecordedRequest] { requests(to: .token).filter { $0.form["grant_type"] == "refresh_token" } }
}

/// A logged-in harness whose access token lives `lifetime` seconds; tokens issued later live an hour.
func loggedIn(lifetime: Int = 20, _ configure: (inout EmulatorConfiguration) -> Void = { _ in }) throws -> FlowHarness {
    let harness = try FlowHarness {
        $0.accessTokenLifetime = lifetime
        configure(&$0)
    }
    let run = harness.login()
    try #require(run.status == 0, "\(run)")
    harness.emulator.accessTokenLifetime = 3600
    return harness
}

/// A failure as the user sees it: `status`, nothing on stdout, one line on stderr without any of
/// `secrets`; `rule`, when given, is the rule that refused (asserted instead of the wording).
func expectOneLineError(
    _ run: FlowRun, status: Int32, rule: Rule? = nil, contains fragments: [String] = [], secrets: [String],
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(run.status == status, "\(run)", sourceLocation: sourceLocation)
    if let rule { #expect(run.rule == rule, "\(run)", sourceLocation: sourceLocation) }
    #expect(run.stdout.isEmpty, sourceLocation: sourceLocation)
    #expect(run.stderr.split(separator: "\n").count == 1, "\(run)", sourceLocation: sourceLocation)
    for fragment in fragments { #expect(run.stderr.contains(fragment), "\(run)", sourceLocation: sourceLocation) }
    for secret in secrets { #expect(!run.stderr.contains(secret), sourceLocation: sourceLocation) }
}

extension SignIn {
    /// The sign-in `pingcli login --issuer ISSUER --client-id pingcli-test --timeout 60` resolves to.
    static func forTests(issuer: String) -> SignIn? {
        guard let issuer = try? IssuerURL(issuer), let profile = try? ProfileName("default") else { return nil }
        var signIn = SignIn(
            profile: profile, issuer: issuer, clientID: "pingcli-test", scopes: ["openid", "profile", "email"], way: .browser)
        signIn.timeout = 60
        return signIn
    }
}

/// A file's text, or nil when it cannot be read.
func readText(_ path: String) -> String? {
    FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
}
