import Foundation
import PingEmulator
import Testing

/// docs/json.md's tables, read as the contract: for each section, key -> type.
enum JSONContract {
    static func table(_ section: String) throws -> [String: String] {
        let text = try #require(readText(DebianTools.repositoryRoot + "/docs/json.md"))
        let start = try #require(text.range(of: "## `\(section)`\n"))
        let rest = text[start.upperBound...]
        let body = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
        var table: [String: String] = [:]
        for line in body.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            table[String(cells[0].dropFirst().dropLast())] = cells[1]
        }
        return table
    }

    /// Whether `value` has the documented type.
    static func matches(_ value: EmulatorJSON, _ type: String) -> Bool {
        if type.hasSuffix(" or null"), value == .null { return true }
        switch (type.replacingOccurrences(of: " or null", with: ""), value) {
        case ("string", .string), ("number", .number), ("boolean", .bool), ("object", .object): return true
        case ("array of strings", .array(let items)): return items.allSatisfy { $0.stringValue != nil }
        case ("array of objects", .array(let items)):
            return items.allSatisfy {
                if case .object = $0 { return true }
                return false
            }
        default: return false
        }
    }

    /// Every documented key present with its type, and no other key.
    static func check(_ object: [String: EmulatorJSON], against table: [String: String], _ what: String) {
        #expect(
            Set(object.keys) == Set(table.keys),
            "\(what): keys not in the docs \(Set(object.keys).subtracting(table.keys)), missing \(Set(table.keys).subtracting(object.keys))"
        )
        for (key, type) in table {
            guard let value = object[key] else { continue }
            #expect(matches(value, type), "\(what): \(key) is \(value), documented as \(type)")
        }
        #expect(object["version"] == .number(1), "\(what)")
        for (key, values) in enums {
            if let value = object[key]?.stringValue { #expect(values.contains(value), "\(what): \(key) \(value)") }
        }
    }

    static let enums: [String: Set<String>] = [
        "state": ["logged_in", "not_logged_in", "session_expired", "problem"],
        "grant": ["authorization_code", "device_code", "client_credentials"],
        "next": ["use_cached", "refresh", "request_new", "login", "fix_problem"],
        "key_store": ["keyring", "file", "command"],
        "storage": ["software", "tpm"],
        "authentication_type": ["none", "application_pin", "biometric_only", "biometric_allow_fallback"],
    ]

    static func object(_ run: CLIRun) throws -> [String: EmulatorJSON] {
        guard case .object(let members) = try #require(EmulatorJSON.parse(Data(run.stdout.utf8)), "\(run)") else {
            Issue.record("not an object: \(run)")
            return [:]
        }
        return members
    }

    static func strings(_ value: EmulatorJSON?) -> [String]? { value?.arrayValue?.compactMap(\.stringValue) }
}

@Suite("the JSON contract (docs/json.md)")
struct JSONContractTests {
    @Test(
        "json-contract: status --json prints every documented key with its type in each state (logged in, device, client credentials, logged out, unknown profile, damaged cache, expired), enums in snake_case, version 1"
    )
    func statusStates() throws {
        let table = try JSONContract.table("status --json")
        #expect(table.count == 34, "\(table)")
        let (emulator, sandbox) = try loggedIn()
        let loggedIn = sandbox.run(["status", "--json"])
        #expect(loggedIn.status == 0)
        let object = try JSONContract.object(loggedIn)
        JSONContract.check(object, against: table, "logged in")
        #expect(object["state"] == "logged_in" && object["next"] == "use_cached", "\(object)")
        #expect(object["grant"] == "authorization_code")
        #expect(JSONContract.strings(object["scopes"]) == ["openid", "profile", "email"], "\(object)")
        #expect(JSONContract.strings(object["audience"]) == [Emulator.pingOneAPIAudience], "\(object)")

        // A narrower token held: every key of its object present.
        #expect(sandbox.run(["token", "--raw", "--scope", "openid"]).status == 0)
        let targeted = try JSONContract.object(sandbox.run(["status", "--json"]))
        let records = try #require(targeted["targeted_tokens"]?.arrayValue)
        guard case .object(let record)? = records.first else {
            Issue.record("no targeted token: \(targeted)")
            return
        }
        #expect(records.count == 1 && Set(record.keys) == ["scope", "resource", "audience", "expires_at"], "\(records)")
        #expect(record["resource"] == .null && record["scope"] == "openid", "\(records)")

        // Another profile signed in with the device grant: the grant in the same style.
        let device = sandbox.run(
            ["login", "--device", "--profile", "tv", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--timeout", "60"])
        if device.status == 0 {
            let object = try JSONContract.object(sandbox.run(["status", "--json", "--profile", "tv"]))
            JSONContract.check(object, against: table, "device")
            #expect(object["grant"] == "device_code", "\(object)")
        }

        #expect(sandbox.run(["logout"]).status == 0)
        let loggedOut = sandbox.run(["status", "--json"])
        #expect(loggedOut.status == 4)
        let out = try JSONContract.object(loggedOut)
        JSONContract.check(out, against: table, "logged out")
        #expect(out["state"] == "not_logged_in" && out["next"] == "login" && out["scopes"] == .null, "\(out)")

        let unknown = sandbox.run(["status", "--json", "--profile", "nobody-here"])
        #expect(unknown.status == 4)
        let none = try JSONContract.object(unknown)
        JSONContract.check(none, against: table, "no settings")
        #expect(none["issuer"] == .null && none["discovery"] == .null && none["grant"] == .null, "\(none)")

        #expect(sandbox.login(emulator).status == 0)
        try Data("damaged".utf8).write(to: URL(fileURLWithPath: sandbox.stateDirectory + "/tokens.enc"))
        let damaged = sandbox.run(["status", "--json"])
        let problem = try JSONContract.object(damaged)
        JSONContract.check(problem, against: table, "damaged")
        #expect(problem["state"] == "problem" && problem["next"] == "fix_problem", "\(problem)")
        #expect(problem["problem"]?.stringValue != nil)
    }

    @Test(
        "json-contract-logout: logout --json without and with --revoke, and for a profile never logged in: every key of docs/json.md's table, revoked and session_ended null when not asked for"
    )
    func logoutContract() throws {
        let (emulator, sandbox) = try loggedIn()
        let table = try JSONContract.table("logout --json")
        #expect(table.count == 6, "\(table)")
        let plain = sandbox.run(["logout", "--json"])
        let object = try JSONContract.object(plain)
        JSONContract.check(object, against: table, "logout --json")
        #expect(object["revoked"] == .null && object["session_ended"] == .null && object["problems"] == .array([]), "\(plain)")
        #expect(object["removed"] == .bool(true), "\(plain)")
        #expect(sandbox.login(emulator, ["--scope", "openid profile email revoke"]).status == 0)
        let revoked = sandbox.run(["logout", "--revoke", "--json"])
        let revokedObject = try JSONContract.object(revoked)
        JSONContract.check(revokedObject, against: table, "logout --revoke --json")
        #expect(
            revokedObject["revoked"]
                == .object(["access_token": .bool(true), "refresh_token": .bool(true), "targeted_access_tokens": .array([])]),
            "\(revoked)")
        let never = sandbox.run(["logout", "--revoke", "--json", "--profile", "never"])
        let neverObject = try JSONContract.object(never)
        JSONContract.check(neverObject, against: table, "logout --json, a profile never logged in")
        #expect(
            neverObject["removed"] == .bool(false)
                && neverObject["revoked"]
                    == .object(["access_token": .null, "refresh_token": .null, "targeted_access_tokens": .array([])]),
            "\(never)")
    }

    @Test(
        "json-contract-otp: otp code --json for TOTP and HOTP and otp list --json: every key of docs/json.md's tables, null where the type has none"
    )
    func otpContract() throws {
        let sandbox = Sandbox()
        for (name, uri) in [
            ("t", "otpauth://totp/ACME:alice?secret=\(OTPEndToEndTests.secret)&issuer=ACME"),
            ("h", "otpauth://hotp/bob?secret=\(OTPEndToEndTests.secret)&counter=3"),
        ] {
            #expect(sandbox.run(["otp", "add", "--name", name], input: uri + "\n").status == 0)
        }
        let codeTable = try JSONContract.table("otp code --json")
        let totp = try JSONContract.object(sandbox.run(["otp", "code", "t", "--json"]))
        JSONContract.check(totp, against: codeTable, "otp code --json (TOTP)")
        #expect(totp["counter"] == .null && totp["remaining_seconds"]?.numberValue != nil, "\(totp)")
        let hotp = try JSONContract.object(sandbox.run(["otp", "code", "h", "--json"]))
        JSONContract.check(hotp, against: codeTable, "otp code --json (HOTP)")
        #expect(hotp["counter"] == .number(3) && hotp["expires_at"] == .null && hotp["valid_from"] == .null, "\(hotp)")
        let listTable = try JSONContract.table("otp list --json")
        let list = sandbox.run(["otp", "list", "--json"])
        guard case .array(let items) = try #require(EmulatorJSON.parse(Data(list.stdout.utf8)), "\(list)") else {
            Issue.record("not an array: \(list)")
            return
        }
        #expect(items.count == 2, "\(list)")
        for item in items {
            guard case .object(let members) = item else {
                Issue.record("not an object: \(item)")
                continue
            }
            JSONContract.check(members, against: listTable, "otp list --json")
        }
        #expect(items.first?["issuer"] == .string("ACME") && items.last?["issuer"] == .null, "\(list)")
        #expect(items.first?["counter"] == .null && items.last?["period"] == .null, "\(list)")
    }

    @Test("json-contract-machine: a client-credentials profile: grant client_credentials, id_token null, next use_cached")
    func clientCredentials() throws {
        let (emulator, sandbox) = sandboxed(try confidentialEmulator(method: "client_secret_basic"))
        let login = sandbox.run(
            ["login", "--client-credentials", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--json"],
            environment: ["PINGCLI_CLIENT_SECRET": confidentialSecret])
        #expect(login.status == 0, "\(login)")
        let table = try JSONContract.table("status --json")
        let object = try JSONContract.object(login)
        JSONContract.check(object, against: table, "login --json, client credentials")
        #expect(object["grant"] == "client_credentials" && object["id_token"] == .null, "\(object)")
        #expect(object["next"] == "use_cached")
    }

    @Test(
        "json-contract-profiles: profiles --json has status's keys plus current; current is true exactly on the profile the list marks with *, with and without PINGCLI_PROFILE"
    )
    func profiles() throws {
        let (emulator, sandbox) = try loggedIn()
        #expect(sandbox.login(emulator, ["--profile", "work"]).status == 0)
        var table = try JSONContract.table("status --json")
        for (key, type) in try JSONContract.table("profiles --json") { table[key] = type }
        for environment in [[:], ["PINGCLI_PROFILE": "work"]] {
            let run = sandbox.run(["profiles", "--json"], environment: environment)
            let list: [[String: EmulatorJSON]] = (EmulatorJSON.parse(Data(run.stdout.utf8))?.arrayValue ?? []).compactMap {
                if case .object(let members) = $0 { return members }
                return nil
            }
            #expect(list.count == 2, "\(run)")
            for object in list { JSONContract.check(object, against: table, "profiles --json") }
            let current = list.filter { $0["current"] == .bool(true) }.compactMap { $0["profile"]?.stringValue }
            let marked = sandbox.run(["profiles"], environment: environment).stdout.split(separator: "\n")
                .filter { $0.hasPrefix("*") }.map { $0.dropFirst(2).prefix { $0 != "\t" } }.map(String.init)
            #expect(current == marked && current == [environment["PINGCLI_PROFILE"] ?? "default"], "\(current) \(marked)")
        }
    }
}

@Suite("status says what a token can do")
struct StatusScopesTests {
    @Test(
        "status-scopes: status shows the granted scopes, the audience, the narrower tokens and what token does next; no token on any line"
    )
    func text() throws {
        let (emulator, sandbox) = try loggedIn()
        #expect(sandbox.run(["token", "--raw", "--scope", "openid"]).status == 0)
        let run = sandbox.run(["status"])
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run)")
        #expect(run.stdout.contains("\nscopes:        openid profile email\n"), "\(run.stdout)")
        #expect(run.stdout.contains("\naudience:      \(Emulator.pingOneAPIAudience)\n"), "\(run.stdout)")
        #expect(run.stdout.contains("\nnarrower:      scope \"openid\" (expires in "), "\(run.stdout)")
        #expect(run.stdout.contains("\nnext token:    the cached access token\n"), "\(run.stdout)")
        for token in emulator.issuedAccessTokens + emulator.issuedRefreshTokens { #expect(!run.stdout.contains(token)) }
    }

    @Test("status-next-refresh: an access token that expires within 30 s, with a refresh token: next is a refresh first")
    func nextRefresh() throws {
        let (_, sandbox) = try loggedIn { $0.accessTokenLifetime = 20 }
        let run = sandbox.run(["status"])
        #expect(run.stdout.contains("\nnext token:    a refresh first (the access token expires within 30 s)\n"), "\(run)")
        #expect(try JSONContract.object(sandbox.run(["status", "--json"]))["next"] == "refresh")
    }

    @Test(
        "status-all-table: status --all is one line per profile under a header, * on the profile in effect, the key store once, and the way to the details"
    )
    func table() throws {
        let (emulator, sandbox) = try loggedIn()
        #expect(sandbox.login(emulator, ["--profile", "work"]).status == 0)
        #expect(sandbox.run(["logout", "--profile", "work"]).status == 0)
        let run = sandbox.run(["status", "--all"])
        #expect(run.rule == "status-problem", "\(run)")
        #expect(run.status == 4 && run.stderr == "pingcli: not every profile is logged in\n", "\(run)")
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        #expect(lines.count == 6, "\(run.stdout)")
        #expect(lines[0].hasPrefix("  PROFILE  ACCOUNT") && lines[0].hasSuffix("ACCESS TOKEN"), "\(lines)")
        #expect(
            lines[1].hasPrefix("* default  Demo User ") && lines[1].contains(" logged in ") && lines[1].contains("expires in"), "\(lines)")
        #expect(lines[2].hasPrefix("  work     ") && lines[2].contains(" not logged in "), "\(lines)")
        #expect(lines[4].hasPrefix("key store: file ("), "\(lines)")
        #expect(lines[5] == "Details, scopes and files: pingcli status --profile NAME", "\(lines)")
        let work = sandbox.run(["status", "--all"], environment: ["PINGCLI_PROFILE": "work"])
        #expect(work.stdout.contains("\n* work "), "\(work.stdout)")
    }
}
