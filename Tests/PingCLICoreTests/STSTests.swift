import Testing

@testable import PingAWS
@testable import PingBase
@testable import PingFuzz
@testable import PingHTTP
@testable import PingPlatform

/// STS's AssumeRoleWithWebIdentity: the request, the one gate for its XML answer, the endpoint, the
/// inputs' gates. Each rule with its named negative test.
@Suite("STS: AssumeRoleWithWebIdentity")
struct STSTests {
    static let role = try! RoleARN("arn:aws:iam::123456789012:role/ping/Developers")

    static func success(
        accessKeyID: String = "ASIAEXAMPLEKEY123456", expiration: String = "2026-12-05T23:16:46Z", extra: String = ""
    ) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
          <AssumeRoleWithWebIdentityResult>
            <AssumedRoleUser><Arn>arn:aws:sts::123456789012:assumed-role/Developers/alice</Arn></AssumedRoleUser>
            <Credentials>
              <AccessKeyId>\(accessKeyID)</AccessKeyId>
              <SecretAccessKey>wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY</SecretAccessKey>
              <SessionToken>FQoGZXIvYXdzEXAMPLE+token/with==</SessionToken>
              <Expiration>\(expiration)</Expiration>\(extra)
            </Credentials>
          </AssumeRoleWithWebIdentityResult>
          <ResponseMetadata><RequestId>7a62c49f-347e-4fc4-9331-6e8eEXAMPLE</RequestId></ResponseMetadata>
        </AssumeRoleWithWebIdentityResponse>
        """
    }

    static func answer(_ body: String, status: Int = 200, type: String? = "text/xml") -> HTTPResponse {
        HTTPResponse(status: status, headers: type.map { ["content-type": $0] } ?? [:], body: Array(body.utf8))
    }

    static func failure(_ response: HTTPResponse) -> STSFailure? {
        do {
            _ = try AssumeRoleWithWebIdentity.process(response)
            return nil
        } catch {
            return error
        }
    }

    static func error(code: String, message: String = "m", status: Int = 400) -> HTTPResponse {
        answer(
            "<ErrorResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><Error><Type>Sender</Type><Code>\(code)</Code>"
                + "<Message>\(message)</Message></Error><RequestId>r</RequestId></ErrorResponse>", status: status)
    }

    @Test("sts-request: a form POST with the action, version, role, session name, token and duration; nothing in the URL")
    func request() throws {
        let call = AssumeRoleWithWebIdentity(role: Self.role, sessionName: try RoleSessionName("alice@example.com"), duration: 3600)
        let regional = EndpointURL("https://sts.us-east-1.amazonaws.com")
        let request = call.request(endpoint: regional, idToken: "eyJh.eyJz.c2ln")
        #expect(request.method == .post)
        #expect(request.url == "https://sts.us-east-1.amazonaws.com")
        let pairs = try #require(FormEncoding.decode(String(decoding: request.body ?? [], as: UTF8.self)))
        #expect(pairs.map(\.name) == ["Action", "Version", "RoleArn", "RoleSessionName", "WebIdentityToken", "DurationSeconds"])
        #expect(
            pairs.map(\.value) == [
                "AssumeRoleWithWebIdentity", "2011-06-15", Self.role.value, "alice@example.com", "eyJh.eyJz.c2ln", "3600",
            ])
        let noDuration = AssumeRoleWithWebIdentity(role: Self.role, sessionName: try RoleSessionName("ab"), duration: nil)
        let global = EndpointURL("https://sts.amazonaws.com")
        let body = String(decoding: noDuration.request(endpoint: global, idToken: "t").body ?? [], as: UTF8.self)
        #expect(!body.containsText("DurationSeconds"))
    }

    @Test("sts-response: the credentials of a 200, the expiry read as RFC 3339 (fractions and offsets too)")
    func success() throws {
        let credentials = try AssumeRoleWithWebIdentity.process(Self.answer(Self.success()))
        #expect(credentials.accessKeyID == "ASIAEXAMPLEKEY123456")
        #expect(credentials.secretAccessKey == "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY")
        #expect(credentials.sessionToken == "FQoGZXIvYXdzEXAMPLE+token/with==")
        #expect(formatUTC(credentials.expiration) == "2026-12-05T23:16:46Z")
        #expect(parseRFC3339("2026-12-05T23:16:46.123Z").map { Int($0) } == Int(credentials.expiration))
        #expect(parseRFC3339("2026-12-06T00:16:46+01:00") == credentials.expiration)
        // moto and some proxies answer without a Content-Type, or with application/xml.
        #expect((try? AssumeRoleWithWebIdentity.process(Self.answer(Self.success(), type: nil))) != nil)
        #expect((try? AssumeRoleWithWebIdentity.process(Self.answer(Self.success(), type: "application/xml; charset=utf-8"))) != nil)
    }

    @Test("sts-response-gate: hostile XML is refused: DOCTYPE and entities, comments, CDATA, instructions, mixed content")
    func hostile() {
        let hostile = [
            "<!DOCTYPE x [<!ENTITY a \"aaaa\">]><AssumeRoleWithWebIdentityResponse>&a;</AssumeRoleWithWebIdentityResponse>",
            "<?xml version=\"1.0\"?><!DOCTYPE x SYSTEM \"file:///etc/passwd\"><x>&xxe;</x>",
            "<x><!-- c --></x>", "<x><![CDATA[a]]></x>", "<x><?pi a?></x>", "<x>text<y>1</y></x>", "<x>&unknown;</x>",
            "<x>&#0;</x>", "<x>&#x1b;</x>", "<x>\u{1b}[2J</x>", "<x><y>1</y></x><z/>", "<x><y>1</z></x>", "<x>", "", "   ",
            "<x a=b></x>", "<x a=\"<\"></x>", "<1x></1x>", "<x>&amp</x>",
        ]
        for body in hostile {
            #expect(Self.failure(Self.answer(body))?.rule == .stsResponseGate, "\(body.debugDescription)")
        }
        #expect((try? STSXML(Array("<x>&lt;&#65;&#x42;&quot;</x>".utf8)))?["x"] == "<AB\"")
        #expect(Self.failure(Self.answer(Self.success(), type: "text/html"))?.rule == .stsResponseGate)
        #expect(Self.failure(Self.answer(Self.success(), type: "application/json"))?.rule == .stsResponseGate)
        #expect((try? STSXML([0x3C, 0x78, 0x3E, 0xFF, 0x3C, 0x2F, 0x78, 0x3E])) == nil, "not UTF-8")
    }

    @Test("sts-response-gate-bounded: a huge body, deep nesting and many elements are refused before any use")
    func bounded() {
        let huge = Self.success(extra: "<Padding>" + String(repeating: "A", count: 70_000) + "</Padding>")
        #expect(throws: STSXML.Failure.tooLarge) { try STSXML(Array(huge.utf8)) }
        #expect(Self.failure(Self.answer(huge))?.rule == .stsResponseGate)
        let deep = String(repeating: "<a>", count: 9) + "x" + String(repeating: "</a>", count: 9)
        #expect(Self.failure(Self.answer(deep))?.rule == .stsResponseGate)
        let many = "<x>" + String(repeating: "<y>1</y>", count: 70) + "</x>"
        #expect(Self.failure(Self.answer(many))?.rule == .stsResponseGate)
    }

    @Test("sts-response-gate-duplicate: a field given twice is refused, not chosen")
    func duplicate() {
        let twice = Self.success(extra: "<AccessKeyId>ASIAOTHERKEY12345678</AccessKeyId>")
        #expect(Self.failure(Self.answer(twice))?.rule == .stsResponseGate)
    }

    @Test("sts-response-missing-field: each of the four credentials' fields is required")
    func missing() {
        for field in ["AccessKeyId", "SecretAccessKey", "SessionToken", "Expiration"] {
            let body = Self.success().replacingText("<\(field)>", with: "<X\(field)>").replacingText("</\(field)>", with: "</X\(field)>")
            #expect(Self.failure(Self.answer(body)) == .missingField(field), "\(field)")
        }
        #expect(Self.failure(Self.answer("<AssumeRoleWithWebIdentityResponse/>"))?.rule == .stsResponseMissingField)
    }

    @Test("sts-response-malformed-field: wrong dates and fields outside their alphabets are refused")
    func malformed() {
        for date in [
            "2026-02-30T00:00:00Z", "2026-12-05 23:16:46Z", "2026-12-05T23:16:46", "1733440000", "2026-13-01T00:00:00Z",
            "2026-12-05T24:00:00Z", "2026-12-05T23:16:46.Z", "2026-12-05T23:16:46+0100", "",
        ] {
            #expect(Self.failure(Self.answer(Self.success(expiration: date))) == .malformedField("Expiration"), "\(date)")
        }
        for key in ["ASIA EXAMPLE KEY 12", "short", "ASIA\"EXAMPLEKEY1234", String(repeating: "A", count: 129)] {
            #expect(Self.failure(Self.answer(Self.success(accessKeyID: key))) == .malformedField("AccessKeyId"), "\(key)")
        }
    }

    @Test("sts-error-codes: STS's error codes are typed, each with its rule; throttling and 5xx are retryable")
    func errors() {
        let cases: [(String, Rule)] = [
            ("AccessDenied", .stsAccessDenied), ("InvalidIdentityToken", .stsInvalidIdentityToken),
            ("IDPRejectedClaim", .stsIDPRejectedClaim), ("ExpiredTokenException", .stsExpiredToken), ("Throttling", .stsThrottled),
            ("IDPCommunicationError", .stsThrottled), ("ValidationError", .stsErrorResponse),
            ("RegionDisabledException", .stsErrorResponse),
        ]
        for (code, rule) in cases {
            let failure = Self.failure(Self.error(code: code, message: "Not authorized &amp; so on"))
            #expect(failure?.rule == rule, "\(code)")
            if case .refused(let typed, let message, _)? = failure {
                #expect(typed.name == code || code == "IDPCommunicationError" || typed == .other(code), "\(code)")
                #expect(message == "Not authorized & so on")
            }
        }
        #expect(Self.failure(Self.error(code: "Throttling"))?.isRetryable == true)
        #expect(Self.failure(Self.error(code: "AccessDenied", status: 403))?.isRetryable == false)
        #expect(Self.failure(Self.answer("<html>busy</html>", status: 503, type: "text/html")) == .httpStatus(503))
        #expect(Self.failure(Self.answer("<html>busy</html>", status: 503, type: "text/html"))?.isRetryable == true)
        #expect(Self.failure(Self.error(code: "Bad Code!"))?.rule == .stsHTTPError)
        let shown = Self.failure(Self.error(code: "AccessDenied", message: "evil \u{1b}]52;c;x\u{07} text"))
        if case .refused(_, let message, _)? = shown { #expect(!message.unicodeScalars.contains(where: isTerminalActive)) }
    }

    @Test("aws-endpoint: AWS_ENDPOINT_URL_STS, then AWS_ENDPOINT_URL, then the region's, then the global endpoint; https or loopback http")
    func endpoint() throws {
        #expect(try STSEndpoint.resolve(region: nil, environment: [:]).value == "https://sts.amazonaws.com")
        #expect(
            try STSEndpoint.resolve(region: nil, environment: ["AWS_DEFAULT_REGION": "eu-west-1"]).value
                == "https://sts.eu-west-1.amazonaws.com")
        let both: Environment = ["AWS_REGION": "eu-central-2", "AWS_DEFAULT_REGION": "eu-west-1"]
        #expect(try STSEndpoint.resolve(region: nil, environment: both).value == "https://sts.eu-central-2.amazonaws.com")
        #expect(try STSEndpoint.resolve(region: "us-west-2", environment: both).value == "https://sts.us-west-2.amazonaws.com")
        #expect(try STSEndpoint.resolve(region: "cn-north-1", environment: [:]).value == "https://sts.cn-north-1.amazonaws.com.cn")
        let overridden: Environment = ["AWS_ENDPOINT_URL": "https://sts.internal.example", "AWS_REGION": "us-east-1"]
        #expect(try STSEndpoint.resolve(region: nil, environment: overridden).value == "https://sts.internal.example")
        var stsFirst = overridden
        stsFirst = ["AWS_ENDPOINT_URL_STS": "http://127.0.0.1:5000", "AWS_ENDPOINT_URL": "https://sts.internal.example"]
        #expect(try STSEndpoint.resolve(region: nil, environment: stsFirst).value == "http://127.0.0.1:5000")
        #expect(throws: AWSInputFailure.endpoint(name: "AWS_ENDPOINT_URL_STS", .insecure)) {
            try STSEndpoint.resolve(region: nil, environment: ["AWS_ENDPOINT_URL_STS": "http://sts.example.com"])
        }
        for region in ["US-EAST-1", "us east", "eu-west-1/../x", "-x", "a.b"] {
            #expect(throws: AWSInputFailure.region, "\(region)") { try STSEndpoint.resolve(region: region, environment: [:]) }
        }
    }

    @Test("aws-role-arn and aws-session-name: the gates, and a session name made from a person's name")
    func inputs() throws {
        for good in ["arn:aws:iam::123456789012:role/R", "arn:aws-us-gov:iam::123456789012:role/path/to/Role+=,.@_-"] {
            #expect((try? RoleARN(good)) != nil, "\(good)")
        }
        for bad in [
            "arn:aws:iam::12345678901:role/R", "arn:aws:iam:us-east-1:123456789012:role/R", "arn:aws:s3:::bucket/key-name",
            "arn:aws:iam::123456789012:user/R", "arn:aws:iam::123456789012:role/", "arn:aws:iam::123456789012:role/a b", "role/R",
        ] {
            #expect(throws: AWSInputFailure.roleARN, "\(bad)") { try RoleARN(bad) }
        }
        #expect(RoleSessionName.sanitised("Alice Example")?.value == "Alice-Example")
        #expect(RoleSessionName.sanitised("alice@example.com")?.value == "alice@example.com")
        #expect(RoleSessionName.sanitised("Zoë \u{1b}[2J")?.value == "Zo-2J")
        #expect(RoleSessionName.sanitised(String(repeating: "a", count: 100))?.value.count == 64)
        #expect(RoleSessionName.sanitised("é") == nil)
        #expect(throws: AWSInputFailure.sessionName) { try RoleSessionName("a") }
        #expect(throws: AWSInputFailure.sessionName) { try RoleSessionName("a/b") }
    }

    @Test("sts inputs replay without breaking an invariant, and the seeds are what they are named after")
    func fuzzCorpus() throws {
        for input in FuzzCorpusTests.inputs("sts") { FuzzEntryPoints.sts(input) }
        let success = try #require(try FileSystem.read(FuzzCorpusTests.root + "/corpus/sts/success"))
        let credentials = try AssumeRoleWithWebIdentity.process(Self.answer(String(decoding: success.dropFirst(), as: UTF8.self)))
        #expect(credentials.accessKeyID == "ASgeIAIOSFODNN7EXAMPLE")
        let denied = try #require(try FileSystem.read(FuzzCorpusTests.root + "/corpus/sts/access-denied"))
        #expect(Self.failure(Self.answer(String(decoding: denied.dropFirst(), as: UTF8.self), status: 403))?.rule == .stsAccessDenied)
        let laughs = try #require(try FileSystem.read(FuzzCorpusTests.root + "/corpus/sts/billion-laughs"))
        #expect(Self.failure(Self.answer(String(decoding: laughs.dropFirst(), as: UTF8.self)))?.rule == .stsResponseGate)
    }
}
