import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The `ping-emulator` executable's switches for the administrator settings (what `make demo` and a
/// person at a shell use).
@Suite("ping-emulator switches")
struct EmulatorExecutableTests {
    static var executable: String { Locations.binDirectory + "/ping-emulator" }

    @Test("emulator-help: --help lists every administrator switch")
    func help() {
        let run = runProcess(Self.executable, ["--help"], environment: [:], timeout: 20)
        #expect(run.status == 0)
        for flag in [
            "--signing-alg", "--access-token-typ", "--iss-in-authorization-response", "--resource", "--refresh-token-ttl",
            "--refresh-token-rolling-duration", "--refresh-token-grace", "--access-token-revocation", "--access-grant-guid-claim",
            "--no-pingfederate-cookie", "--post-logout-uri", "--device-grant-without-id-token", "--acr", "--auth-time-age",
            "--no-discovery", "--trees", "--cookie-name", "--short-issuer", "--totp-secret", "--push-approve-after",
            "--auth-id-ttl", "--suspended-ttl", "--session-ttl", "--no-implied-consent",
        ] {
            #expect(run.stdout.contains(flag), "\(flag) missing from --help")
        }
        #expect(!run.stdout.contains("--requires-revoke-scope"))
    }

    @Test(
        "emulator-bad-switch: a wrong value is a usage error (exit 2)",
        arguments: [
            ["--signing-alg", "none"], ["--refresh-token-grace", "86401"], ["--iss-in-authorization-response", "maybe"],
            ["--resource", "https://api.example.com"], ["--requires-revoke-scope"], ["--auth-time-age", "-5"], ["--acr", ""],
            ["--par", "on"], ["--cookie-name", "a b"], ["--push-approve-after", "0"], ["--trees", "/nonexistent/trees.json"],
            ["--totp-secret", "nobody=JBSWY3DPEHPK3PXP"], ["--session-ttl", "-1"],
        ])
    func badValue(arguments: [String]) {
        #expect(runProcess(Self.executable, arguments, environment: [:], timeout: 20).status == 2)
    }

    @Test("emulator-par-default: the PingOne layout lists pushed_authorization_request_endpoint unless --par off")
    func parDefault() throws {
        func discovery(_ arguments: [String]) throws -> String {
            try running(arguments) { issuer in
                runProcess(
                    "/usr/bin/curl", ["-sS", "--noproxy", "*", issuer + "/.well-known/openid-configuration"], environment: [:], timeout: 20
                )
                .stdout
            }
        }
        #expect(try discovery([]).contains("\"pushed_authorization_request_endpoint\":"))
        #expect(try !discovery(["--par", "off"]).contains("pushed_authorization_request_endpoint"))
        #expect(try !discovery(["--layout", "pingfederate"]).contains("pushed_authorization_request_endpoint"))
        #expect(try discovery(["--layout", "pingfederate", "--par", "offered"]).contains("\"pushed_authorization_request_endpoint\":"))
    }

    /// Runs the executable with `arguments` until `body`, given its issuer, returns.
    func running<T>(_ arguments: [String], _ body: (String) throws -> T) throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("emulator-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let ready = directory + "/issuer"
        let log = open(directory + "/log", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        defer { close(log) }
        let (pid, error) = spawnProcess(Self.executable, arguments + ["--ready-file", ready], environment: [:], stdout: log, stderr: log)
        try #require(error == 0)
        defer {
            kill(pid, SIGTERM)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        var issuer = ""
        for _ in 0..<100 where issuer.isEmpty {
            issuer = (readText(ready) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            if issuer.isEmpty { usleep(100_000) }
        }
        try #require(!issuer.isEmpty, "the emulator did not start")
        return try body(issuer)
    }

    @Test("emulator-switches: the flags reach discovery, the JWKS and sign-off")
    func switchesTakeEffect() throws {
        let arguments = [
            "--layout", "pingfederate", "--iss-in-authorization-response", "on", "--signing-alg", "PS256",
            "--no-pingfederate-cookie", "--post-logout-uri", "http://127.0.0.1:1/logout",
        ]
        try running(arguments) { issuer in
            func get(_ url: String) -> String {
                runProcess("/usr/bin/curl", ["-sS", "--noproxy", "*", url], environment: [:], timeout: 20).stdout
            }
            #expect(get(issuer + "/.well-known/openid-configuration").contains("\"authorization_response_iss_parameter_supported\":true"))
            #expect(get(issuer + "/pf/JWKS").contains("\"alg\":\"PS256\""))
            // No PingFederate cookie: even a plain sign-off asks for confirmation.
            #expect(get(issuer + "/idp/init_logout.openid?client_id=pingcli-test").contains("id=\"emulator-logout-confirm\""))
        }
    }

    @Test("emulator-journey-switches: --trees, --cookie-name and --short-issuer reach PingAM's endpoints")
    func journeySwitches() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trees-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let trees = directory + "/trees.json"
        try Data(#"{"trees": [{"name": "Just Code", "nodes": [{"type": "OneTimeCode", "prompt": "Code"}]}]}"#.utf8)
            .write(to: URL(fileURLWithPath: trees))
        let arguments = ["--layout", "pingam", "--trees", trees, "--cookie-name", "46b42b4229cd7a3", "--short-issuer"]
        try running(arguments) { issuer in
            #expect(issuer.hasSuffix("/am/oauth2/alpha"))
            let am = String(issuer.dropLast("/oauth2/alpha".count))
            func curl(_ extra: [String]) -> String {
                runProcess("/usr/bin/curl", ["-sS", "--noproxy", "*"] + extra, environment: [:], timeout: 20).stdout
            }
            #expect(
                curl(["-H", "Accept-API-Version: resource=1.1", am + "/json/serverinfo/*"]).contains("\"cookieName\":\"46b42b4229cd7a3\""))
            let step = curl([
                "-X", "POST", "-H", "Content-Type: application/json", "-H", "Accept-API-Version: resource=2.1, protocol=1.0",
                am + "/json/realms/root/realms/alpha/authenticate?authIndexType=service&authIndexValue=Just%20Code",
            ])
            #expect(step.contains("\"authId\":"))
            #expect(step.contains("\"value\":\"Code\""))
        }
    }
}
