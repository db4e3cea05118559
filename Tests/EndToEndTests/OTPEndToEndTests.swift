import Foundation
import PingEmulator
import Testing

/// `pingcli otp` through the built binary, with Debian's oathtool as the independent check of every code.
@Suite("otp: add, code, list, remove against oathtool")
struct OTPEndToEndTests {
    /// RFC 4226's secret "12345678901234567890", in base32 and in hex (what oathtool reads without -b).
    static let secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
    static let hex = "3132333435363738393031323334353637383930"
    /// RFC 6238's SHA-512 seed (64 bytes).
    static let seed512 = String(repeating: "1234567890", count: 7).prefix(64)

    /// oathtool with the key on its standard input (`-`), never on its command line.
    func oathtool(_ arguments: [String], key: String, sandbox: Sandbox) -> [String] {
        let path = sandbox.root + "/oath-key-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: path, contents: Data((key + "\n").utf8), attributes: [.posixPermissions: 0o600])
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        defer {
            close(descriptor)
            unlink(path)
        }
        let run = runProcess("/usr/bin/oathtool", arguments + ["-"], environment: ["PATH": "/usr/bin:/bin"], timeout: 30, stdin: descriptor)
        #expect(run.status == 0, "\(run)")
        return run.stdout.split(separator: "\n").map(String.init)
    }

    func object(_ run: CLIRun) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8))) as? [String: Any] ?? [:]
    }

    @Test("TOTP SHA-1, SHA-256 and SHA-512, 6 and 8 digits, 30 and 60 s: each code is oathtool's for its period")
    func totpAgainstOathtool() throws {
        let sandbox = Sandbox()
        let seed256 = String(repeating: "1234567890", count: 4).prefix(32)
        let cases: [(String, String, [String], String)] = [
            ("otpauth://totp/ACME:alice?secret=\(Self.secret)&issuer=ACME", "ACME:alice", ["--totp", "-b"], Self.secret),
            (
                "otpauth://totp/b?secret=\(base32(seed256))&algorithm=SHA256&digits=8&period=60", "b",
                ["--totp=sha256", "-d", "8", "-s", "60"],
                hexString(seed256)
            ),
            (
                "otpauth://totp/c?secret=\(base32(Self.seed512))&algorithm=SHA512&digits=7", "c", ["--totp=sha512", "-d", "7"],
                hexString(Self.seed512)
            ),
        ]
        for (uri, name, options, key) in cases {
            let add = sandbox.run(["otp", "add"], input: uri + "\n")
            #expect(add.status == 0, "\(add)")
            #expect(add.stderr.contains("Added the OTP account \"\(name)\""), "\(add)")
            let code = sandbox.run(["otp", "code", name, "--json"])
            #expect(code.status == 0, "\(code)")
            let json = object(code)
            let from = try #require(json["valid_from"] as? Int)
            let until = try #require(json["expires_at"] as? Int)
            let remaining = try #require(json["remaining_seconds"] as? Int)
            #expect(until - from == (name == "b" ? 60 : 30) && remaining >= 1 && remaining <= until - from)
            #expect([json["code"] as? String] == oathtool(options + ["-N", "@\(from)"], key: key, sandbox: sandbox).map { $0 }, "\(name)")
            let plain = sandbox.run(["otp", "code", name])
            #expect(plain.status == 0 && plain.stdout.count == (json["code"] as? String ?? "").count + 1, "\(plain)")
        }
    }

    @Test("HOTP from counter 5: three codes, the next three oathtool computes; the counter advances in the store")
    func hotpAgainstOathtool() {
        let sandbox = Sandbox()
        #expect(sandbox.run(["otp", "add", "--name", "vpn"], input: "otpauth://hotp/Corp:bob?secret=\(Self.secret)&counter=5").status == 0)
        let codes = (0..<3).map { _ in sandbox.run(["otp", "code", "vpn"]).stdout.trimmingCharacters(in: .newlines) }
        #expect(codes == oathtool(["--hotp", "-c", "5", "-w", "2"], key: Self.hex, sandbox: sandbox))
        let list = sandbox.run(["otp", "list", "--json"])
        let accounts = (try? JSONSerialization.jsonObject(with: Data(list.stdout.utf8))) as? [[String: Any]] ?? []
        #expect(accounts.count == 1 && accounts.first?["counter"] as? Int == 8 && accounts.first?["name"] as? String == "vpn", "\(list)")
    }

    @Test("otp-hotp-lock: eight concurrent processes get eight different codes, exactly oathtool's first eight")
    func concurrentHOTP() {
        let sandbox = Sandbox()
        #expect(sandbox.run(["otp", "add"], input: "otpauth://hotp/shared?secret=\(Self.secret)").status == 0)
        let results = Locked<[CLIRun]>([])
        let group = DispatchGroup()
        for _ in 0..<8 {
            group.enter()
            Thread {
                let run = sandbox.run(["otp", "code", "shared"])
                results.withLock { $0.append(run) }
                group.leave()
            }.start()
        }
        group.wait()
        let runs = results.withLock { $0 }
        #expect(runs.allSatisfy { $0.status == 0 }, "\(runs)")
        let codes = runs.map { $0.stdout.trimmingCharacters(in: .newlines) }
        #expect(Set(codes).count == 8, "\(codes)")
        #expect(Set(codes) == Set(oathtool(["--hotp", "-c", "0", "-w", "7"], key: Self.hex, sandbox: sandbox)))
    }

    @Test("list, remove, a missing name; --file needs mode 0600; a URI on the command line is refused without echoing it")
    func listRemoveAndInputs() throws {
        let sandbox = Sandbox()
        let uri = "otpauth://totp/Mail:carol?secret=\(Self.secret)&issuer=Mail"
        let argv = sandbox.run(["otp", "add", uri])
        #expect(argv.rule == "otp-uri-argv", "\(argv)")
        #expect(argv.status == 2 && !argv.stderr.contains(Self.secret), "\(argv)")
        let file = sandbox.root + "/uri.txt"
        _ = FileManager.default.createFile(atPath: file, contents: Data(uri.utf8), attributes: [.posixPermissions: 0o644])
        let open = sandbox.run(["otp", "add", "--file", file])
        #expect(open.rule == "file-mode-refused", "\(open)")
        #expect(open.status == 1 && open.stderr.contains("chmod 600"), "\(open)")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        #expect(sandbox.run(["otp", "add", "--file", file]).status == 0)
        let again = sandbox.run(["otp", "add", "--file", file])
        #expect(again.rule == "otp-name-taken", "\(again)")
        #expect(again.status == 1, "\(again)")
        #expect(sandbox.run(["otp", "add", "--file", file, "--replace"]).status == 0)
        let list = sandbox.run(["otp", "list"])
        #expect(list.stdout == "Mail:carol\ttotp\tSHA1\t6 digits\t30s\n", "\(list)")
        let typo = sandbox.run(["otp", "code", "Mail:carl"])
        #expect(typo.rule == "otp-no-account", "\(typo)")
        #expect(typo.status == 1 && typo.stderr.contains("did you mean"), "\(typo)")
        #expect(sandbox.run(["otp", "remove", "Mail:carol", "--yes"]).status == 0)
        let gone = sandbox.run(["otp", "code", "Mail:carol"])
        #expect(gone.rule == "otp-no-account", "\(gone)")
        #expect(gone.status == 1, "\(gone)")
        let bad = sandbox.run(["otp", "add"], input: "otpauth://totp/x?secret=\(Self.secret)&digits=9")
        #expect(bad.rule == "otp-digits", "\(bad)")
        #expect(bad.status == 1, "\(bad)")
    }

    @Test("the secret is in no file pingcli wrote, on no output, not in --verbose; a tampered store is refused")
    func secretStaysSecret() throws {
        let sandbox = Sandbox()
        let add = sandbox.run(["--verbose", "otp", "add"], input: "otpauth://totp/d?secret=\(Self.secret)")
        let code = sandbox.run(["--verbose", "otp", "code", "d"])
        let list = sandbox.run(["--verbose", "otp", "list", "--json"])
        for run in [add, code, list] {
            #expect(run.status == 0, "\(run)")
            #expect(!(run.stdout + run.stderr).contains(Self.secret) && !(run.stdout + run.stderr).contains("1234567890"), "\(run)")
        }
        var written: [String] = []
        for directory in ["/config", "/data", "/state"] {
            let base = sandbox.root + directory
            for case let relative as String in FileManager.default.enumerator(atPath: base) ?? .init() {
                guard let bytes = FileManager.default.contents(atPath: base + "/" + relative) else { continue }
                written.append(relative)
                for needle in [Self.secret, "12345678901234567890", Self.secret.lowercased()] {
                    #expect(bytes.range(of: Data(needle.utf8)) == nil, "\(relative) holds the secret")
                }
            }
        }
        #expect(written.contains("pingcli/otp/accounts.enc"), "\(written)")
        let store = sandbox.root + "/config/pingcli/otp/accounts.enc"
        #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/state/pingcli/otp"), "one location: the config directory")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: store))
        bytes[bytes.count - 1] ^= 1
        try bytes.write(to: URL(fileURLWithPath: store))
        let tampered = sandbox.run(["otp", "code", "d"])
        #expect(tampered.rule == "otp-store-tampered", "\(tampered)")
        #expect(tampered.status == 1, "\(tampered)")
    }

    @Test(
        "otp-store-moved: an earlier build's store under the state directory is read where it is, then taken once into the config directory"
    )
    func legacyStoreTaken() throws {
        let sandbox = Sandbox()
        #expect(sandbox.run(["otp", "add"], input: "otpauth://totp/d?secret=\(Self.secret)").status == 0)
        let here = sandbox.root + "/config/pingcli/otp/accounts.enc"
        let legacy = sandbox.root + "/state/pingcli/otp/accounts.enc"
        try FileManager.default.createDirectory(atPath: sandbox.root + "/state/pingcli/otp", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: here, toPath: legacy)
        let list = sandbox.run(["otp", "list"])
        #expect(list.status == 0 && list.stdout.contains("d"), "\(list)")
        #expect(sandbox.run(["otp", "code", "d"]).status == 0)
        #expect(FileManager.default.fileExists(atPath: here) && !FileManager.default.fileExists(atPath: legacy))
        #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/state/pingcli/otp"), "the old directory removed")
    }
}

private func base32(_ text: some StringProtocol) -> String {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
    var output = ""
    var buffer = 0
    var bits = 0
    for byte in text.utf8 {
        buffer = (buffer << 8 | Int(byte)) & 0xFFFF
        bits += 8
        while bits >= 5 {
            bits -= 5
            output.append(alphabet[(buffer >> bits) & 31])
        }
    }
    if bits > 0 { output.append(alphabet[(buffer << (5 - bits)) & 31]) }
    return output
}

private func hexString(_ text: some StringProtocol) -> String { text.utf8.map { String(format: "%02x", $0) }.joined() }
