import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The AWS side of the integration tests: Debian's AWS CLI (package awscli) and moto's STS server (PyPI,
/// installed by `make deps` into `.build/tools/moto-venv`).
enum AWSTools {
    /// Debian's `aws`: the one dpkg lists for awscli (another `aws` on PATH may be a different build).
    static let aws: String? = {
        if let path = ProcessInfo.processInfo.environment["PINGCLI_TEST_AWS"] { return path }
        let listed = runProcess("/usr/bin/dpkg-query", ["-L", "awscli"], environment: ["PATH": "/usr/bin:/bin"], timeout: 30)
        guard listed.status == 0 else { return nil }
        return listed.stdout.split(separator: "\n").first(where: { $0.hasSuffix("/bin/aws") }).map(String.init)
    }()

    static let motoServer: String? = {
        let path = DebianTools.repositoryRoot + "/.build/tools/moto-venv/bin/moto_server"
        return access(path, X_OK) == 0 ? path : nil
    }()

    static let available = aws != nil && motoServer != nil
    static let missing: Comment = "Debian's awscli or moto (.build/tools/moto-venv) is missing: run make deps"
}

/// moto's server on a loopback port, recording every request it receives (its recorder, to a file).
/// moto's AssumeRoleWithWebIdentity checks neither the token's signature nor its audience: what STS
/// itself would check is the IAM setup's (docs/ping-setup.md); here the test checks what STS received.
final class MotoSTS {
    let pid: pid_t
    let port: UInt16
    let recording: String

    init(sandbox: Sandbox) throws {
        let server = try #require(AWSTools.motoServer)
        recording = sandbox.root + "/moto-recording"
        var started: (pid_t, UInt16)? = nil
        for _ in 0..<3 where started == nil {
            let port = TLSFront.freePort()
            let log = open(sandbox.root + "/moto.log", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
            let (pid, error) = spawnProcess(
                server, ["-H", "127.0.0.1", "-p", "\(port)"],
                environment: [
                    "PATH": "/usr/bin:/bin", "MOTO_ENABLE_RECORDING": "true", "MOTO_RECORDER_FILEPATH": recording, "HOME": sandbox.root,
                ], stdout: log, stderr: log)
            close(log)
            guard error == 0 else { continue }
            if awaitListening(pid, port: port, looks: 1500) { started = (pid, port) }
        }
        let (pid, port) = try #require(started, "moto_server did not start: \(readText(sandbox.root + "/moto.log") ?? "")")
        self.pid = pid
        self.port = port
    }

    deinit {
        // werkzeug's server, under moto, outlives a SIGTERM while a connection is open.
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    var url: String { "http://127.0.0.1:\(port)" }

    /// The form fields of each AssumeRoleWithWebIdentity request moto received, in order.
    var assumeRoleRequests: [[String: String]] {
        (readText(recording) ?? "").split(separator: "\n").compactMap { line -> [String: String]? in
            guard let entry = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                var body = entry["body"] as? String
            else { return nil }
            if entry["body_encoded"] as? Bool == true, let data = Data(base64Encoded: body) { body = String(decoding: data, as: UTF8.self) }
            var fields: [String: String] = [:]
            for pair in body.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map {
                    String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
                }
                if parts.count == 2 { fields[parts[0]] = parts[1] }
            }
            return fields["Action"] == "AssumeRoleWithWebIdentity" ? fields : nil
        }
    }
}

@Suite("AWS CLI with credential_process, end to end", .enabled(if: AWSTools.available, AWSTools.missing))
struct AWSCLITests {
    static let role = "arn:aws:iam::123456789012:role/PingDevelopers"

    /// A signed-in sandbox, moto, and the environment the AWS CLI (and through it pingcli) runs in.
    static func setUp() throws -> (Emulator, Sandbox, MotoSTS, [String: String]) {
        let (emulator, sandbox) = try loggedIn()
        let moto = try MotoSTS(sandbox: sandbox)
        let environment = [
            "AWS_CONFIG_FILE": sandbox.root + "/aws/config", "AWS_SHARED_CREDENTIALS_FILE": sandbox.root + "/aws/credentials",
            "AWS_ENDPOINT_URL_STS": moto.url, "AWS_DEFAULT_REGION": "us-east-1", "AWS_EC2_METADATA_DISABLED": "true",
            "AWS_PAGER": "",
        ]
        return (emulator, sandbox, moto, environment)
    }

    /// The AWS CLI, as the person runs it (this awscli predates AWS_ENDPOINT_URL_STS: it is told the endpoint).
    static func aws(_ arguments: [String], _ sandbox: Sandbox, _ moto: MotoSTS, _ environment: [String: String]) -> CLIRun {
        runProcess(
            AWSTools.aws ?? "aws", ["--endpoint-url", moto.url] + arguments, environment: sandbox.environment.merging(environment) { $1 },
            timeout: 120)
    }

    @Test(
        "aws-credential-process: setup aws writes credential_process; aws sts get-caller-identity is the assumed role; STS got the profile's ID token, the role and the session name; a second call uses the cache"
    )
    func credentialProcess() throws {
        let (_, sandbox, moto, environment) = try Self.setUp()
        let setup = sandbox.run(
            ["setup", "aws", "--role-arn", Self.role, "--aws-profile", "ping", "--session-name", "alice"], environment: environment)
        #expect(setup.status == 0, "\(setup)")
        let identity = Self.aws(["sts", "get-caller-identity", "--profile", "ping", "--output", "json"], sandbox, moto, environment)
        #expect(identity.status == 0, "\(identity)")
        #expect(identity.stdout.contains("\"Arn\": \"arn:aws:sts::123456789012:assumed-role/PingDevelopers/alice\""), "\(identity)")
        let idToken = sandbox.run(["token", "--id-token", "--raw"]).stdout.trimmingCharacters(in: .newlines)
        let requests = moto.assumeRoleRequests
        #expect(requests.count == 1)
        #expect(requests.first?["WebIdentityToken"] == idToken && !idToken.isEmpty, "STS received the profile's ID token")
        #expect(requests.first?["RoleArn"] == Self.role)
        #expect(requests.first?["RoleSessionName"] == "alice")
        #expect(requests.first?["Version"] == "2011-06-15")
        // A second AWS CLI process inside the credentials' validity: pingcli answers from its cache.
        let again = Self.aws(["sts", "get-caller-identity", "--profile", "ping"], sandbox, moto, environment)
        #expect(again.status == 0, "\(again)")
        #expect(moto.assumeRoleRequests.count == 1, "no second request to STS")
        // No credential in clear in any file pingcli keeps, nor the ID token.
        let json = sandbox.run(["aws", "credential-process", "--role-arn", Self.role, "--session-name", "alice"], environment: environment)
        #expect(json.status == 0, "\(json)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["Version"] as? Int == 1)
        #expect(moto.assumeRoleRequests.count == 1)
        for secret in [object["SecretAccessKey"] as? String, object["SessionToken"] as? String, object["AccessKeyId"] as? String, idToken] {
            let secret = try #require(secret)
            for directory in [sandbox.root + "/config", sandbox.root + "/data", sandbox.root + "/state", sandbox.root + "/aws"] {
                #expect(!filesContain(directory, secret), "\(directory) holds a credential in clear")
            }
        }
    }

    @Test("aws-session-name-default: without --session-name, the session is named after the ID token's preferred_username")
    func defaultSessionName() throws {
        let (_, sandbox, moto, environment) = try Self.setUp()
        let run = sandbox.run(["aws", "env", "--role-arn", Self.role, "--verbose"], environment: environment)
        #expect(run.status == 0, "\(run)")
        let session = try #require(moto.assumeRoleRequests.first?["RoleSessionName"])
        #expect(session.count >= 2 && !session.contains(" "))
        #expect(run.stdout.contains("export AWS_ACCESS_KEY_ID="), "\(run)")
        // --verbose names the request, never the token or the credentials.
        let token = sandbox.run(["token", "--id-token", "--raw"]).stdout.trimmingCharacters(in: .newlines)
        #expect(!run.stderr.contains(token) && !token.isEmpty)
        let secret = run.stdout.split(separator: "\n").first { $0.hasPrefix("export AWS_SECRET_ACCESS_KEY=") }?.split(separator: "=").last
        #expect(!run.stderr.contains(String(try #require(secret))))
    }

    @Test("sts-access-denied: an STS refusal reaches the AWS CLI as pingcli's one line, with its exit status")
    func stsError() throws {
        let (_, sandbox, moto, environment) = try Self.setUp()
        let refusing = try CannedSTS(
            status: 403,
            body:
                "<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>Not authorized to perform sts:AssumeRoleWithWebIdentity</Message></Error><RequestId>r</RequestId></ErrorResponse>"
        )
        defer { refusing.stop() }
        var failing = environment
        failing["AWS_ENDPOINT_URL_STS"] = refusing.url
        #expect(sandbox.run(["setup", "aws", "--role-arn", Self.role, "--aws-profile", "ping"], environment: failing).status == 0)
        let direct = sandbox.run(["aws", "credential-process", "--role-arn", Self.role], environment: failing)
        #expect(direct.status == 1, "\(direct)")
        #expect(direct.stdout.isEmpty)
        #expect(
            direct.stderr.hasPrefix("pingcli: AWS STS refused role \(Self.role)") && direct.stderr.filter { $0 == "\n" }.count == 1,
            "\(direct)")
        #expect(direct.stderr.contains("AccessDenied") && direct.stderr.contains("trust policy"))
        #expect(direct.rule == "sts-access-denied", "\(direct)")
        let cli = Self.aws(["sts", "get-caller-identity", "--profile", "ping"], sandbox, moto, failing)
        #expect(cli.status != 0, "\(cli)")
        #expect(cli.stderr.contains(direct.stderr.trimmingCharacters(in: .newlines)), "the AWS CLI shows pingcli's line: \(cli)")
    }

    static let docsSetup = "pingcli setup aws --role-arn arn:aws:iam::123456789012:role/PingDevelopers --aws-profile ping"
    static let docsCallerIdentity = "aws sts get-caller-identity --profile ping"
    static let docsEnv = #"eval "$(pingcli aws env --role-arn arn:aws:iam::123456789012:role/PingDevelopers)""#

    @Test("docs-usage-aws: usage.md's AWS examples, as written, against moto's STS")
    func documented() throws {
        let (_, sandbox, moto, environment) = try Self.setUp()
        var shell = DocsShell(sandbox)
        shell.environment = environment
        // This awscli (2.9) predates AWS_ENDPOINT_URL_STS, which pingcli itself reads: it is told the endpoint.
        shell.substitutions = [("aws sts ", "aws --endpoint-url \(moto.url) sts ")]
        let run = try shell.succeeds(
            Self.docsSetup, Self.docsCallerIdentity, Self.docsEnv,
            then: #"printf '%s\n' "${AWS_ACCESS_KEY_ID:+key set}" "${AWS_SESSION_TOKEN:+token set}""#)
        #expect(run.stdout.contains("assumed-role/PingDevelopers/"), "\(run)")
        #expect(run.stdout.hasSuffix("key set\ntoken set\n"), "\(run)")
        #expect(moto.assumeRoleRequests.count == 1, "aws env reused the credentials the AWS CLI had got")
    }

    @Test("setup-aws: twice changes nothing, every other line is kept, --remove takes the line out, --dry-run writes nothing")
    func setupAWS() throws {
        let (_, sandbox, moto, environment) = try Self.setUp()
        let config = sandbox.root + "/aws/config"
        try FileManager.default.createDirectory(atPath: sandbox.root + "/aws", withIntermediateDirectories: true)
        let original =
            "# my settings\n[default]\nregion = eu-west-1\n\n[profile ping]\nregion = us-east-1\noutput = json\n\n[profile other]\nregion = ap-south-1\n"
        try original.write(toFile: config, atomically: true, encoding: .utf8)
        let arguments = ["setup", "aws", "--role-arn", Self.role, "--aws-profile", "ping"]
        let dry = sandbox.run(arguments + ["--dry-run"], environment: environment)
        #expect(dry.status == 0 && dry.stdout.contains("credential_process = "), "\(dry)")
        #expect(readText(config) == original)
        #expect(sandbox.run(arguments, environment: environment).status == 0)
        let written = try #require(readText(config))
        #expect(sandbox.run(arguments, environment: environment).status == 0)
        #expect(readText(config) == written, "a second run changes nothing")
        #expect(written.components(separatedBy: "credential_process").count == 2)
        #expect(
            written.replacingOccurrences(
                of: "\n" + (written.split(separator: "\n").first { $0.hasPrefix("credential_process") } ?? ""), with: "") == original)
        // The AWS CLI reads the line as pingcli wrote it.
        let identity = Self.aws(["sts", "get-caller-identity", "--profile", "ping"], sandbox, moto, environment)
        #expect(identity.status == 0, "\(identity)")
        let region = Self.aws(["configure", "get", "region", "--profile", "other"], sandbox, moto, environment)
        #expect(region.stdout == "ap-south-1\n", "\(region)")
        #expect(sandbox.run(arguments + ["--remove"], environment: environment).status == 0)
        #expect(readText(config) == original)
        // A new file for a new AWS profile, and its removal, leave the file as it was.
        #expect(sandbox.run(arguments.dropLast() + ["new"], environment: environment).status == 0)
        #expect(readText(config)?.contains("[profile new]\ncredential_process = ") == true)
        #expect(sandbox.run(["setup", "aws", "--aws-profile", "new", "--remove"], environment: environment).status == 0)
        #expect(readText(config) == original)
    }
}

/// A stand-in that answers every request with one canned STS answer (moto never refuses a web identity).
final class CannedSTS: @unchecked Sendable {
    let descriptor: Int32
    let port: UInt16
    private let thread: Thread

    init(status: Int, body: String) throws {
        (descriptor, port) = LoopbackAcceptor.listen()
        let listener = descriptor
        let response =
            "HTTP/1.1 \(status) Refused\r\nContent-Type: text/xml\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        thread = Thread {
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }
                Self.readRequest(client)
                _ = Array(response.utf8).withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                close(client)
            }
        }
        thread.start()
    }

    /// Reads the head and as many body bytes as its Content-Length says (at most 1 MiB).
    static func readRequest(_ client: Int32) {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while bytes.count < 1 << 20 {
            if let end = String(decoding: bytes, as: UTF8.self).range(of: "\r\n\r\n") {
                let head = String(decoding: bytes, as: UTF8.self)[..<end.lowerBound].lowercased()
                let length =
                    head.components(separatedBy: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                if bytes.count >= String(decoding: bytes, as: UTF8.self)[..<end.upperBound].utf8.count + length { return }
            }
            let count = recv(client, &buffer, buffer.count, 0)
            guard count > 0 else { return }
            bytes += buffer[..<count]
        }
    }

    var url: String { "http://127.0.0.1:\(port)" }

    func stop() {
        shutdown(descriptor, Int32(SHUT_RDWR))
        close(descriptor)
    }
}

/// Whether any regular file under `directory` holds `text`.
func filesContain(_ directory: String, _ text: String) -> Bool {
    guard let walker = FileManager.default.enumerator(atPath: directory) else { return false }
    for case let path as String in walker {
        if let data = FileManager.default.contents(atPath: directory + "/" + path), String(decoding: data, as: UTF8.self).contains(text) {
            return true
        }
    }
    return false
}
