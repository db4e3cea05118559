import Foundation
import PingEmulator
import Synchronization
import Testing

@testable import PingAWS
@testable import PingBase
@testable import PingCommands
@testable import PingFlowCore
@testable import PingHTTP

/// An STS stand-in on the test's clock: it records each AssumeRoleWithWebIdentity form and answers from a
/// script (then with credentials for an hour); every other request goes to the emulator.
final class ScriptedSTS: HTTPTransport, Sendable {
    static let url = "https://sts.test.example"
    let base: Mutex<(any HTTPTransport)?> = Mutex(nil)
    let clock: TestClock
    let script: Mutex<[HTTPResponse?]>
    let forms: Mutex<[[String: String]]> = Mutex([])

    /// `script`: the answers in order (nil: unreachable), then success.
    init(clock: TestClock, script: [HTTPResponse?] = []) {
        self.clock = clock
        self.script = Mutex(script)
    }

    static func error(_ code: String, status: Int = 400) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: ["content-type": "text/xml"],
            body: Array(
                "<ErrorResponse><Error><Type>Sender</Type><Code>\(code)</Code><Message>said \(code)</Message></Error></ErrorResponse>".utf8)
        )
    }

    func success() -> HTTPResponse {
        let body = """
            <AssumeRoleWithWebIdentityResponse><AssumeRoleWithWebIdentityResult><Credentials>
            <AccessKeyId>ASIATESTKEY\(forms.withLock { $0.count })0000000</AccessKeyId>
            <SecretAccessKey>secretsecretsecretsecret+/=</SecretAccessKey><SessionToken>sessiontokensessiontoken</SessionToken>
            <Expiration>\(formatUTC(clock.now + 3600))</Expiration></Credentials></AssumeRoleWithWebIdentityResult>
            </AssumeRoleWithWebIdentityResponse>
            """
        return HTTPResponse(status: 200, headers: ["content-type": "text/xml"], body: Array(body.utf8))
    }

    func send(_ request: HTTPRequest) throws(TransportError) -> HTTPResponse {
        guard request.url.hasPrefix(Self.url) else {
            guard let base = base.withLock({ $0 }) else { throw .unreachable("no base transport") }
            return try base.send(request)
        }
        let form = Dictionary(
            (FormEncoding.decode(String(decoding: request.body ?? [], as: UTF8.self)) ?? []).map { ($0.name, $0.value) }
        ) { $1 }
        forms.withLock { $0.append(form) }
        let next = script.withLock { $0.isEmpty ? .some(success()) : $0.removeFirst() }
        guard let next else { throw .unreachable("connection refused") }
        return next
    }
}

@Suite("aws credential-process: the cache, the ID token, STS's refusals")
struct AWSFlowTests {
    static let role = "arn:aws:iam::123456789012:role/PingDevelopers"

    /// What no failure may show: the credentials the stand-in hands out and the emulator's tokens.
    static func secrets(_ harness: FlowHarness) -> [String] {
        ["secretsecretsecretsecret", "sessiontokensessiontoken"] + harness.emulator.issuedAccessTokens
            + harness.emulator.issuedRefreshTokens
    }

    /// `pingcli aws ARGUMENTS` in-process, STS answered by `sts`.
    func run(_ harness: FlowHarness, _ sts: ScriptedSTS, _ arguments: [String]) throws -> FlowRun {
        var (context, captured) = try harness.context()
        sts.base.withLock { $0 = context.makeTransport(context.transportOptions) }
        context.makeTransport = { _ in sts }
        do throws(PingCLIError) {
            try PingCLI.dispatch(
                ["aws"] + arguments + ["--role-arn", Self.role], environment: ["AWS_ENDPOINT_URL_STS": ScriptedSTS.url], context: context)
            return FlowRun(status: 0, stdout: captured.out, stderr: captured.err)
        } catch {
            context.console.err("pingcli: \(error.message)")
            return FlowRun(status: error.status.rawValue, stdout: captured.out, stderr: captured.err, rule: error.rule)
        }
    }

    @Test("aws-cache-reuse: reused until five minutes before Expiration; then the ID token, refreshed, goes to STS again")
    func cache() throws {
        let harness = try loggedIn(lifetime: 3600) { $0.idTokenLifetime = 3000 }
        let sts = ScriptedSTS(clock: harness.clock)
        let first = try run(harness, sts, ["credential-process"])
        #expect(first.status == 0, "\(first)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any])
        #expect(json["Version"] as? Int == 1 && json["AccessKeyId"] as? String == "ASIATESTKEY10000000")
        #expect(json["Expiration"] as? String == formatUTC(harness.clock.now + 3600))
        let firstToken = try #require(sts.forms.withLock { $0.first?["WebIdentityToken"] })
        harness.clock.advance(by: 3250)
        #expect(try run(harness, sts, ["credential-process"]).stdout == first.stdout, "5 min 50 s left: the cached ones")
        #expect(sts.forms.withLock { $0.count } == 1)
        harness.clock.advance(by: 100)
        let later = try run(harness, sts, ["credential-process"])
        #expect(later.status == 0 && later.stdout != first.stdout, "\(later)")
        let forms = sts.forms.withLock { $0 }
        #expect(forms.count == 2)
        #expect(forms.last?["WebIdentityToken"] != firstToken, "the expired ID token was refreshed before STS saw it")
        #expect(harness.emulator.refreshes.count == 1)
        #expect(forms.last?["RoleSessionName"] == forms.first?["RoleSessionName"])
    }

    @Test("aws-cache-bound: another role, session name or duration is another request; logout drops the cache")
    func bound() throws {
        let harness = try loggedIn(lifetime: 3600)
        let sts = ScriptedSTS(clock: harness.clock)
        #expect(try run(harness, sts, ["env"]).status == 0)
        #expect(try run(harness, sts, ["env", "--session-name", "other"]).status == 0)
        #expect(try run(harness, sts, ["env", "--duration", "900"]).status == 0)
        #expect(try run(harness, sts, ["env", "--json"]).status == 0)
        #expect(sts.forms.withLock { $0.count } == 3)
        #expect(sts.forms.withLock { $0[2]["DurationSeconds"] } == "900")
        #expect(FileManager.default.fileExists(atPath: harness.stateDirectory + "/aws-credentials.enc"))
        #expect(harness.run(["logout"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: harness.stateDirectory + "/aws-credentials.enc"))
    }

    @Test("sts-throttled: throttling is retried with backoff on the clock; three refusals exit 3")
    func throttled() throws {
        let harness = try loggedIn(lifetime: 3600)
        let retried = ScriptedSTS(clock: harness.clock, script: [ScriptedSTS.error("Throttling"), ScriptedSTS.error("Throttling")])
        let started = harness.clock.now
        #expect(try run(harness, retried, ["credential-process"]).status == 0)
        #expect(retried.forms.withLock { $0.count } == 3)
        #expect(harness.clock.now - started >= 4, "waited 1 s and 3 s")
        let busy = ScriptedSTS(clock: harness.clock, script: Array(repeating: ScriptedSTS.error("Throttling"), count: 3))
        let failed = try run(harness, busy, ["credential-process", "--session-name", "busy"])
        expectOneLineError(failed, status: 3, rule: .stsThrottled, secrets: Self.secrets(harness))
    }

    @Test(
        "sts-refusals: AccessDenied names aud and sub, InvalidIdentityToken the issuer, ExpiredTokenException exits 4, unreachable exits 3")
    func refusals() throws {
        let harness = try loggedIn(lifetime: 3600)
        let denied = try run(harness, ScriptedSTS(clock: harness.clock, script: [ScriptedSTS.error("AccessDenied", status: 403)]), ["env"])
        expectOneLineError(denied, status: 1, rule: .stsAccessDenied, secrets: Self.secrets(harness))
        #expect(denied.stderr.contains("aud \"pingcli-test\"") && denied.stderr.contains("sub \""), "\(denied)")
        let invalid = try run(harness, ScriptedSTS(clock: harness.clock, script: [ScriptedSTS.error("InvalidIdentityToken")]), ["env"])
        expectOneLineError(invalid, status: 1, rule: .stsInvalidIdentityToken, secrets: Self.secrets(harness))
        #expect(invalid.stderr.contains(harness.emulator.issuer), "\(invalid)")
        let expired = try run(harness, ScriptedSTS(clock: harness.clock, script: [ScriptedSTS.error("ExpiredTokenException")]), ["env"])
        expectOneLineError(expired, status: 4, rule: .stsExpiredToken, secrets: Self.secrets(harness))
        let down = try run(harness, ScriptedSTS(clock: harness.clock, script: [nil]), ["env"])
        expectOneLineError(down, status: 3, rule: .serverUnreachable, secrets: Self.secrets(harness))
        let notXML = try run(
            harness,
            ScriptedSTS(clock: harness.clock, script: [HTTPResponse(status: 200, headers: ["content-type": "text/html"], body: [0x3C])]),
            ["env"])
        expectOneLineError(notXML, status: 1, rule: .stsResponseGate, secrets: Self.secrets(harness))
        for failure in [denied, invalid, expired, down, notXML] {
            #expect(!failure.stderr.contains("secretsecret") && failure.stdout.isEmpty)
        }
    }

    @Test("aws-endpoint-policy: plain http to another host is refused before the ID token leaves (exit 2)")
    func endpointPolicy() throws {
        let harness = try loggedIn(lifetime: 3600)
        let (context, _) = try harness.context()
        var failure: PingCLIError? = nil
        do throws(PingCLIError) {
            try PingCLI.dispatch(
                ["aws", "env", "--role-arn", Self.role], environment: ["AWS_ENDPOINT_URL": "http://sts.example.com"], context: context)
        } catch {
            failure = error
        }
        #expect(failure?.rule == .awsEndpoint && failure?.status == .usage)
        #expect(harness.run(["aws", "env", "--role-arn", "arn:aws:iam::1:role/x"]).rule == .awsRoleARN)
        #expect(harness.run(["aws", "env", "--role-arn", Self.role, "--duration", "60"]).rule == .awsDuration)
    }
}
