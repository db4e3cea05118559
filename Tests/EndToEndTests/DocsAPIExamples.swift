import Foundation
import PingEmulator
import Testing

/// docs/usage.md's "Calling an API" and "DPoP" examples, run as written: `https://api.example.com` is the
/// emulator's protected resource (`/api/resource/…`, any path below it), `https://orders.example.com/v1`
/// the same resource for the Orders API, whose resource indicator `https://orders.example.com` stays.
@Suite("docs examples: calling an API")
struct DocsAPIExamples {
    static let absolute = "pingcli api https://api.example.com/v1/me # GET with the token; the body on stdout, as received"
    static let apiBase = "pingcli login --api-base https://api.example.com/v1 # once: relative URLs go there"
    static let jq = "pingcli api /me | jq .name"
    static let patch = #"pingcli api --method PATCH --header 'If-Match: "7"' --data '{"name":"Ada"}' /users/42"#
    static let fromFile = "pingcli api --data @new-user.json /users # POST, the body from a file"
    static let fromStdin = "generate-report | pingcli api --method PUT --data - /reports/today"
    static let fail = "pingcli api --include --fail /health # status and headers on stderr; exit 6 unless 2xx"
    static let resource =
        "pingcli api --resource https://orders.example.com https://orders.example.com/v1/orders # a token for that API only"
    static let dpopLogin = "pingcli login --dpop # DPoP-bound tokens (RFC 9449) for this profile, from now on"
    static let dpopEdDSA =
        "pingcli login --dpop EdDSA # name the algorithm: ES256, EdDSA, PS256 or RS256 (needed when discovery does not announce DPoP)"
    static let dpopJSON = #"pingcli token --format json # "token_type": "DPoP" and "jkt", the key's thumbprint"#
    static let dpopAPI = "pingcli api /me # proofs are made for you"
    static let dpopCurl =
        #"curl -H "Authorization: DPoP $(pingcli token --raw)" \ -H "DPoP: $(pingcli dpop-proof --method GET --url https://api.example.com/v1/me)" \ https://api.example.com/v1/me"#
    static let noDPoP = "pingcli login --no-dpop # back to bearer tokens"

    func resourceRequests(_ emulator: Emulator) -> [RecordedRequest] { emulator.requests(to: .resource) }

    @Test(
        "docs-usage-api: the api examples send what their comments say (GET, PATCH with If-Match, POST from a file, PUT from stdin, --fail)"
    )
    func apiExamples() throws {
        let (emulator, sandbox) = try DocsTokenExamples.ordersSession()
        var shell = DocsShell(sandbox, emulator: emulator)
        shell.substitutions.insert(("https://orders.example.com/v1", emulator.baseURL + "/api/resource/orders/v1"), at: 0)
        // `generate-report` stands for any program that writes a body: a bash function exported to the example.
        shell.environment["BASH_FUNC_generate-report%%"] = #"() { printf '{"report":"today"}'; }"#
        _ = FileManager.default.createFile(atPath: sandbox.root + "/home/new-user.json", contents: Data(#"{"name":"Grace"}"#.utf8))

        let me = try shell.succeeds(Self.absolute)
        #expect(me.stdout.contains("\"method\":\"GET\"") && resourceRequests(emulator).last?.path == "/api/resource/v1/me", "\(me)")
        #expect(me.stdout.contains("\"sub\":\"\(User.demo.sub)\""), "the token reached the API: \(me)")
        try shell.succeeds(Self.apiBase)
        #expect(try shell.succeeds(Self.jq).stdout == "\"Demo User\"\n")
        let patched = try shell.succeeds(Self.patch)
        let patchRequest = try #require(resourceRequests(emulator).last)
        #expect(patchRequest.method == "PATCH" && patchRequest.path == "/api/resource/v1/users/42", "\(patchRequest)")
        #expect(patchRequest.headers["if-match"] == "\"7\"" && patched.stdout.contains(#""body":"{\"name\":\"Ada\"}""#), "\(patched)")
        let posted = try shell.succeeds(Self.fromFile)
        #expect(posted.stdout.contains("\"method\":\"POST\"") && posted.stdout.contains(#"{\"name\":\"Grace\"}"#), "\(posted)")
        let put = try shell.succeeds(Self.fromStdin)
        #expect(put.stdout.contains("\"method\":\"PUT\"") && put.stdout.contains(#"{\"report\":\"today\"}"#), "\(put)")
        #expect(resourceRequests(emulator).last?.path == "/api/resource/v1/reports/today")
        let health = try shell.succeeds(Self.fail)
        #expect(health.stderr.hasPrefix("HTTP 200\n"), "status and headers on stderr: \(health)")
        emulator.faults.responseOverrides = [.resource: CannedResponse(status: 503, contentType: "text/plain", body: "down", times: 1)]
        let down = try shell.run(Self.fail)
        #expect(down.status == 6 && down.stdout == "down", "exit 6 unless 2xx: \(down)")
        // After the login above, which signed in again for the profile's saved scopes (the Orders API's too).
        let orders = try shell.succeeds(Self.resource)
        #expect(orders.stdout.contains("\"aud\":\"https://orders.example.com\""), "\(orders)")
        #expect(resourceRequests(emulator).last?.path == "/api/resource/orders/v1/orders")
    }

    @Test("docs-usage-dpop: login --dpop (and EdDSA), token --format json, api and the curl with dpop-proof, then --no-dpop")
    func dpopExamples() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        let setup = sandbox.login(emulator, ["--api-base", emulator.baseURL + "/api/resource/v1"])
        #expect(setup.status == 0, "\(setup)")
        let shell = DocsShell(sandbox, emulator: emulator)
        for login in [Self.dpopLogin, Self.dpopEdDSA] {
            try shell.succeeds(login)
            let json = try shell.succeeds(Self.dpopJSON)
            #expect(json.stdout.contains("\"token_type\": \"DPoP\"") && json.stdout.contains("\"jkt\": \""), "\(json)")
        }
        let api = try shell.succeeds(Self.dpopAPI)
        #expect(api.stdout.contains("\"token_type\":\"DPoP\""), "\(api)")
        let curl = try shell.succeeds(Self.dpopCurl)
        #expect(curl.stdout.contains("\"token_type\":\"DPoP\"") && curl.stdout.contains("\"method\":\"GET\""), "\(curl)")
        #expect(resourceRequests(emulator).last?.path == "/api/resource/v1/me" && resourceRequests(emulator).last?.status == 200)
        try shell.succeeds(Self.noDPoP)
        #expect(sandbox.run(["token", "--format", "json"]).stdout.contains("\"token_type\": \"Bearer\""))
    }
}
