import Foundation
import Testing

@testable import PingEmulator

/// Step-up (OIDC Core §3.1.2.1, §3.1.3.7 items 12–13, §2, §12.2): what `--max-age` and `--acr-values` ask
/// of the authentication is sent and then checked in every ID token, refreshed ones too. In process, on
/// the test clock (the emulator's `auth_time` is the same clock's).
@Suite("step-up: max_age, auth_time and acr")
struct StepUpFlowTests {
    func tokensCached(_ harness: FlowHarness) -> Bool {
        FileManager.default.fileExists(atPath: harness.stateDirectory + "/tokens.enc")
    }

    func json(_ run: FlowRun) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run)")
    }

    @Test("max-age: sent as max_age, saved in profile.json; auth_time shown by status and token --format json")
    func maxAgeSentAndSaved() throws {
        let harness = try FlowHarness()
        let run = harness.login(["--max-age", "300"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.hasSuffix("Logged in to \(harness.emulator.issuer) as Demo User (profile \"default\").\n"), "\(run)")
        #expect(harness.emulator.authorizationRequestParameters.first?["max_age"] == "300")
        let profile = try #require(readText(harness.profileDirectory + "/profile.json"))
        #expect(profile.contains("\"max_age\" : 300"), "\(profile)")
        let status = try json(harness.run(["status", "--json"]))
        #expect((status["auth_time"] as? String)?.hasSuffix("Z") == true, "\(status)")
        let token = try json(harness.run(["token", "--format", "json"]))
        #expect(token["auth_time"] as? String == status["auth_time"] as? String, "\(token)")
        #expect(harness.run(["status"]).stdout.contains("signed in at:  "))
    }

    @Test("auth-time-too-old: an auth_time 27 hours old is refused when --max-age 60 was sent; nothing is cached")
    func authTimeTooOld() throws {
        let harness = try FlowHarness { $0.authTimeAge = 27 * 3600 }
        let run = harness.login(["--max-age", "60"])
        #expect(run.status == 1, "\(run)")
        #expect(
            run.lastErrorLine.hasPrefix("pingcli: login failed: the ID token says you last signed in 972")
                && run.lastErrorLine.hasSuffix(
                    "s ago (auth_time), longer than the requested max_age of 60 s: the provider did not make you sign in again: run pingcli login again (--prompt login asks the provider for a new sign-in)"
                ), "\(run)")
        #expect(harness.emulator.authorizationRequestParameters.first?["max_age"] == "60")
        #expect(harness.emulator.requests(to: .token).count == 1 && !tokensCached(harness))
    }

    @Test("auth-time-param: --param max_age=60 is checked like --max-age (the step-up a user asked for)")
    func paramMaxAge() throws {
        let harness = try FlowHarness { $0.authTimeAge = 27 * 3600 }
        let run = harness.login(["--param", "max_age=60"])
        #expect(run.status == 1 && run.stderr.contains("longer than the requested max_age of 60 s"), "\(run)")
        #expect(harness.emulator.authorizationRequestParameters.first?["max_age"] == "60" && !tokensCached(harness))
    }

    @Test("auth-time-leeway: an auth_time older than max_age by less than the 60 s clock leeway is accepted")
    func authTimeLeeway() throws {
        let harness = try FlowHarness { $0.authTimeAge = 90 }
        let run = harness.login(["--max-age", "60"])
        #expect(run.status == 0, "\(run)")
        #expect(tokensCached(harness))
    }

    @Test(
        "auth-time-missing, acr-missing: an ID token without auth_time when max_age was sent, or without acr when acr_values were, is refused; nothing is cached; without the request the claim is not required",
        arguments: [
            ("auth_time", ["--max-age", "600"], "the ID token has no auth_time although max_age=600 was requested (OIDC Core §2)"),
            (
                "acr", ["--acr-values", "urn:strong urn:mfa"],
                "the ID token has no acr claim although acr_values (urn:strong urn:mfa) were requested"
            ),
        ])
    func claimMissing(claim: String, arguments: [String], message: String) throws {
        let harness = try FlowHarness()
        harness.emulator.faults.idTokenClaimOverrides = [claim: .null]
        let run = harness.login(arguments)
        #expect(run.status == 1, "\(run)")
        #expect(run.lastErrorLine.hasPrefix("pingcli: login failed: " + message), "\(run)")
        #expect(!tokensCached(harness))
        // Without the request, the claim is not required.
        #expect(harness.login().status == 0)
    }

    @Test("acr-mismatch: a weaker acr than the requested one is refused, naming both; nothing is cached")
    func acrMismatch() throws {
        let harness = try FlowHarness { $0.acr = "urn:weak" }
        let run = harness.login(["--acr-values", "urn:strong"])
        #expect(run.status == 1, "\(run)")
        #expect(
            run.lastErrorLine
                == "pingcli: login failed: the provider authenticated you with acr \"urn:weak\", not one of the requested acr_values (urn:strong): run pingcli login again (--prompt login asks the provider for a new sign-in)",
            "\(run)")
        #expect(harness.emulator.authorizationRequestParameters.first?["acr_values"] == "urn:strong")
        #expect(!tokensCached(harness))
    }

    @Test("acr-met: a requested acr is accepted, saved with the profile and shown by status and token --format json")
    func acrMet() throws {
        let harness = try FlowHarness()
        let run = harness.login(["--acr-values", "urn:strong urn:mfa"])
        #expect(run.status == 0, "\(run)")
        let profile = try #require(readText(harness.profileDirectory + "/profile.json"))
        #expect(profile.contains("\"acr_values\" : ["), "\(profile)")
        #expect(try json(harness.run(["status", "--json"]))["acr"] as? String == "urn:strong")
        #expect(try json(harness.run(["token", "--format", "json"]))["acr"] as? String == "urn:strong")
        #expect(harness.run(["status"]).stdout.contains("acr:           urn:strong"))
    }

    @Test(
        "refresh-step-up: a refreshed ID token without auth_time, with an earlier one, or with another acr is refused",
        arguments: [
            ("auth_time", EmulatorJSON.null, "the ID token has no auth_time although max_age=300 was requested"),
            ("auth_time", EmulatorJSON.number(1_000_000_000), "the refreshed ID token's auth_time is earlier than the sign-in's"),
            ("acr", EmulatorJSON.string("urn:weak"), "the provider authenticated you with acr \"urn:weak\""),
        ])
    func refreshStepUp(claim: String, value: EmulatorJSON, message: String) throws {
        let harness = try FlowHarness()
        #expect(harness.login(["--max-age", "300", "--acr-values", "urn:strong"]).status == 0)
        let before = harness.emulator.newestTokenLine
        harness.emulator.faults.idTokenClaimOverrides = [claim: value]
        let run = harness.run(["token", "--raw", "--min-ttl", "7200"])
        #expect(run.status == 1 && run.stdout.isEmpty, "\(run)")
        #expect(run.stderr.hasPrefix("pingcli: refresh failed: \(message)") && run.stderr.split(separator: "\n").count == 1, "\(run)")
        #expect(harness.emulator.requests(to: .token).filter { $0.grantType == "refresh_token" }.count == 1)
        // Nothing from the refused refresh is served (only its rotated refresh token is kept).
        #expect(harness.run(["token", "--raw"]).stdout == before)
        #expect(run.stderr.contains("only the rotated refresh token from this refresh was kept"), "\(run)")
        // The same refresh without the fault goes through: the checks are not simply refusing refreshes.
        harness.emulator.faults = Faults()
        #expect(harness.login(["--max-age", "300", "--acr-values", "urn:strong"]).status == 0)
        #expect(harness.run(["token", "--raw", "--min-ttl", "7200"]).status == 0)
    }

    @Test(
        "step-up-usage: a --max-age that is not whole seconds, both --max-age and --param max_age, or step-up with --device, exit 2",
        arguments: [
            ["--max-age", "1.5"], ["--max-age", "-1"], ["--max-age", "60", "--param", "max_age=60"], ["--acr-values", " "],
            ["--device", "--max-age", "60"], ["--device", "--acr-values", "urn:strong"],
        ])
    func usage(arguments: [String]) throws {
        let harness = try FlowHarness()
        let run = harness.login(arguments)
        #expect(run.status == 2, "\(run)")
        #expect(run.stderr.split(separator: "\n").count == 1 && run.stderr.hasPrefix("pingcli: "), "\(run)")
        #expect(harness.emulator.requests(to: .discovery).isEmpty)
    }
}
