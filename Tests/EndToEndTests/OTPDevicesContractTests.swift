import Foundation
import PingEmulator
import Testing

/// `otp` and `devices` keep the contracts the older commands keep: prefixes of names and key ids, a
/// `[y/N]` before a deletion, an aligned table on a terminal, JSON as docs/json.md says.
@Suite("otp and devices keep the command line's contracts")
struct OTPDevicesContractTests {
    /// A sandbox holding three TOTP accounts: ACME:alice, ACME:bob and Mail:carol.
    func accounts() -> Sandbox {
        let sandbox = Sandbox()
        for label in ["ACME:alice", "ACME:bob", "Mail:carol"] {
            let uri = "otpauth://totp/\(label)?secret=\(OTPEndToEndTests.secret)"
            #expect(sandbox.run(["otp", "add"], input: uri + "\n").status == 0)
        }
        return sandbox
    }

    func names(_ sandbox: Sandbox) -> [String] {
        sandbox.run(["otp", "list"]).stdout.split(separator: "\n").compactMap { $0.split(separator: "\t").first.map(String.init) }
    }

    @Test("otp-code-prefix: otp code takes the start of one account's name; the start of several is exit 2 naming each, no code printed")
    func codePrefix() throws {
        let sandbox = accounts()
        let unique = try JSONContract.object(sandbox.run(["otp", "code", "Mail", "--json"]))
        #expect(unique["name"] == .string("Mail:carol"), "\(unique)")
        let plain = sandbox.run(["otp", "code", "ACME:b"])
        #expect(plain.status == 0 && plain.stdout.count == 7, "\(plain)")
        let ambiguous = sandbox.run(["otp", "code", "ACME"])
        #expect(ambiguous.status == 2 && ambiguous.stdout.isEmpty, "\(ambiguous)")
        #expect(ambiguous.stderr.split(separator: "\n").count == 1, "\(ambiguous)")
        #expect(ambiguous.rule == "otp-name-ambiguous", "\(ambiguous)")
        #expect(ambiguous.stderr.contains("\"ACME:alice\"") && ambiguous.stderr.contains("\"ACME:bob\""), "\(ambiguous)")
        #expect(!ambiguous.stderr.contains("Mail:carol"), "\(ambiguous)")
        let none = sandbox.run(["otp", "code", "Nope"])
        #expect(none.rule == "otp-no-account", "\(none)")
        #expect(none.status == 1, "\(none)")
    }

    @Test("otp-remove-scripted: without a terminal otp remove removes nothing unless --yes, and its one-line error names --yes")
    func removeWithoutTerminal() {
        let sandbox = accounts()
        let refused = sandbox.run(["otp", "remove", "ACME:bob"])
        #expect(refused.rule == "otp-remove-unconfirmed", "\(refused)")
        #expect(refused.status == 2 && refused.stdout.isEmpty && refused.stderr.contains("--yes"), "\(refused)")
        #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused)")
        #expect(names(sandbox) == ["ACME:alice", "ACME:bob", "Mail:carol"])
        let missing = sandbox.run(["otp", "remove", "ACME:zed", "--yes"])
        #expect(missing.rule == "otp-no-account", "\(missing)")
        #expect(missing.status == 1, "\(missing)")
        let removed = sandbox.run(["otp", "remove", "ACME:bob", "--yes"])
        #expect(removed.status == 0 && removed.stdout.isEmpty, "\(removed)")
        #expect(names(sandbox) == ["ACME:alice", "Mail:carol"])
    }

    @Test("otp-remove-asks: on a terminal otp remove asks [y/N]: Enter or n keeps the account (exit 2), y removes it")
    func removeOnTerminal() throws {
        let sandbox = accounts()
        for (answer, kept) in [("", true), ("n", true), ("y", false)] {
            let session = try TerminalSession(sandbox, ["otp", "remove", "ACME:bob"])
            session.answer("[y/N] ", answer)
            let run = session.finish()
            #expect(run.status == (kept ? 2 : 0), "\(answer): \(run)")
            #expect(names(sandbox).contains("ACME:bob") == kept, "\(answer): \(run)")
        }
    }

    @Test("otp-list-table: on a terminal otp list is a table under a header, each column starting where its heading does")
    func listTable() throws {
        let sandbox = accounts()
        let session = try TerminalSession(sandbox, ["otp", "list"])
        let run = session.finish()
        let lines = run.stdout.replacingOccurrences(of: "\r", with: "").split(separator: "\n").map(String.init)
        #expect(run.status == 0 && lines.count == 4, "\(run)")
        let header = try #require(lines.first)
        #expect(header.hasPrefix("NAME") && !header.contains("\t"), "\(header)")
        for heading in ["TYPE", "ALGORITHM", "DIGITS", "EVERY"] {
            let column = try #require(header.range(of: heading)).lowerBound.utf16Offset(in: header)
            for row in lines.dropFirst() {
                let offset = row.index(row.startIndex, offsetBy: column)
                #expect(row[row.index(before: offset)] == " " && row[offset] != " ", "\(heading) in \(row)")
            }
        }
        #expect(lines.dropFirst().allSatisfy { $0.contains("totp") && $0.contains("SHA1") && $0.hasSuffix("30s") }, "\(lines)")
    }

    /// A sandbox whose journey bound one device key at the emulator's AM; the key id.
    func boundKey() throws -> (Emulator, Sandbox, String) {
        let emulator = try AMJourneys.emulator()
        let sandbox = Sandbox()
        let answers = AMJourneys.answersFile(sandbox, ["User Name=alice", "Password=\(AMJourneys.password)"])
        let bind = sandbox.run(AMJourneys.login(emulator, tree: "Device Binding", ["--answers", answers]))
        #expect(bind.status == 0, "\(bind)")
        return (emulator, sandbox, try #require(emulator.boundDevices().first?.keyID))
    }

    @Test(
        "json-contract-devices: devices --json is [] with no key, then every key of docs/json.md's table, version 1, bound_at in RFC 3339")
    func devicesContract() throws {
        #expect(Sandbox().run(["devices", "--json"]).stdout == "[]\n")
        let (emulator, sandbox, keyID) = try boundKey()
        defer { emulator.stop() }
        let table = try JSONContract.table("devices --json")
        let run = sandbox.run(["devices", "--json"])
        guard case .array(let items) = try #require(EmulatorJSON.parse(Data(run.stdout.utf8)), "\(run)"), items.count == 1,
            case .object(let key) = items[0]
        else {
            Issue.record("not one object: \(run)")
            return
        }
        JSONContract.check(key, against: table, "devices --json")
        #expect(key["key_id"] == .string(keyID) && key["authentication_type"] == .string("none") && key["pin"] == .bool(false), "\(key)")
        let bound = try #require(key["bound_at"]?.stringValue)
        #expect(bound.count == 20 && bound.hasSuffix("Z") && ISO8601DateFormatter().date(from: bound) != nil, "\(bound)")
        #expect(abs(ISO8601DateFormatter().date(from: bound)?.timeIntervalSinceNow ?? 1e9) < 600, "\(bound)")
    }

    @Test("device-key-prefix: devices remove takes a key id's first 8 characters; 7 are refused (exit 2), an unknown start is exit 1")
    func keyIDPrefix() throws {
        let (emulator, sandbox, keyID) = try boundKey()
        defer { emulator.stop() }
        let short = sandbox.run(["devices", "remove", String(keyID.prefix(7))])
        #expect(short.rule == "device-key-id", "\(short)")
        #expect(short.status == 2 && short.stderr.contains("8 characters"), "\(short)")
        let other = String(keyID.prefix(7)) + (keyID.dropFirst(7).first == "0" ? "1" : "0")
        let unknown = sandbox.run(["devices", "remove", other])
        #expect(unknown.rule == "device-key-unknown", "\(unknown)")
        #expect(unknown.status == 1, "\(unknown)")
        let traversal = sandbox.run(["devices", "remove", "../profiles"])
        #expect(traversal.status == 2, "\(traversal)")
        let removed = sandbox.run(["devices", "remove", String(keyID.prefix(8))])
        #expect(removed.status == 0 && removed.stderr.contains("Removed device key \(keyID)"), "\(removed)")
        #expect(emulator.boundDevices().isEmpty, "AM's record removed too")
    }

    @Test("device-key-ambiguous: a start that several key ids share is exit 2 naming each, and nothing is removed")
    func keyIDAmbiguous() throws {
        let sandbox = Sandbox()
        let directory = sandbox.root + "/config/pingcli/devices"
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let ids = ["0123abcd-0000-4000-8000-000000000001", "0123abcd-0000-4000-8000-000000000002"]
        for id in ids {
            #expect(
                FileManager.default.createFile(
                    atPath: directory + "/\(id).key", contents: Data("x".utf8), attributes: [.posixPermissions: 0o600]))
        }
        let run = sandbox.run(["devices", "remove", "0123abcd"])
        #expect(run.rule == "device-key-ambiguous", "\(run)")
        #expect(run.status == 2 && ids.allSatisfy { run.stderr.contains($0) }, "\(run)")
        #expect(ids.allSatisfy { FileManager.default.fileExists(atPath: directory + "/\($0).key") })
        let longer = sandbox.run(["devices", "remove", "0123abcd-0000-4000-8000-00000000000"])
        #expect(longer.status == 2, "\(longer)")
    }
}
