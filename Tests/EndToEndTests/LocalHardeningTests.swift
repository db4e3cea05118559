import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Rewrites one field of the sandbox's profile.json the way an attacker with the synced `~/.config` would.
func editProfile(_ sandbox: Sandbox, profile: String = "default", _ change: (inout [String: Any]) -> Void) throws {
    let path = sandbox.root + "/config/pingcli/profiles/\(profile)/profile.json"
    var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    change(&object)
    try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
}

@Suite("local hardening: the profile is bound to the cache")
struct ProfileBindingTests {
    @Test(
        "profile-tampered: a profile.json pointed at another server is refused (exit 4) by token, userinfo and status, and the fake endpoint receives nothing",
        arguments: ["token_endpoint", "userinfo_endpoint", "issuer"])
    func tampered(field: String) throws {
        let (emulator, sandbox, _) = try expiringSession()
        let fake = try startEmulator()
        defer {
            emulator.stop()
            fake.stop()
        }
        try editProfile(sandbox) { profile in
            if field == "issuer" {
                profile["issuer"] = fake.issuer
                var metadata = profile["metadata"] as! [String: Any]
                metadata["issuer"] = fake.issuer
                metadata["token_endpoint"] = fake.baseURL + "/steal"
                profile["metadata"] = metadata
            } else {
                var metadata = profile["metadata"] as! [String: Any]
                metadata[field] = fake.baseURL + "/steal"
                profile["metadata"] = metadata
            }
        }
        let path = sandbox.profileDirectory + "/profile.json"
        let secrets = emulator.issuedAccessTokens + emulator.issuedRefreshTokens
        for command in [["token", "--raw"], ["userinfo"], ["logout", "--revoke"]] {
            let run = sandbox.run(command)
            #expect(run.status == 4, "\(command): \(run)")
            #expect(run.stdout.isEmpty)
            #expect(run.rule == (command[0] == "logout" ? "logout-unverified-profile" : "profile-binding"), "\(command): \(run)")
            #expect(run.stderr.contains("profile file \(path) was changed outside pingcli"), "\(run)")
            #expect(run.stderr.contains("run pingcli login --profile default"))
            for secret in secrets { #expect(!run.stderr.contains(secret)) }
            if command[0] != "logout" { #expect(run.stderr.split(separator: "\n").count == 1, "\(run)") }
            if command[0] == "token" {
                let status = sandbox.run(["status"])
                #expect(status.status == 4 && status.stdout.contains("was changed outside pingcli"), "\(status)")
            }
        }
        #expect(fake.requests.isEmpty, "the fake endpoint received \(fake.requests.map(\.path))")
        #expect(emulator.requests(to: .token).count == 1, "only the login's code exchange reached the real server")
    }

    @Test("profile-endpoint-policy: an endpoint that breaks the endpoint policy is refused on load, exit 4, nothing sent")
    func policyOnLoad() throws {
        let (emulator, sandbox, _) = try expiringSession()
        try editProfile(sandbox) { profile in
            var metadata = profile["metadata"] as! [String: Any]
            metadata["token_endpoint"] = "http://attacker.example/steal"
            profile["metadata"] = metadata
        }
        expectOneLineError(
            sandbox.run(["token", "--raw"]), status: 4, rule: "profile-endpoint-policy",
            contains: ["profile.json was changed outside pingcli", "token_endpoint", "run pingcli login --profile default"],
            secrets: emulator.issuedRefreshTokens)
        #expect(emulator.requests(to: .token).count == 1)
    }

    @Test(
        "profile-relogin: a changed profile's issuer and CA file are not taken by login without asking (no terminal: --issuer required); a login with the issuer given rewrites profile and cache"
    )
    func reloginRepairs() throws {
        let (emulator, sandbox) = try loggedIn()
        let fake = try startEmulator()
        defer {
            emulator.stop()
            fake.stop()
        }
        try editProfile(sandbox) { profile in
            profile["issuer"] = fake.issuer
            profile["ca_file"] = "/tmp/attacker-ca.pem"
            var metadata = profile["metadata"] as! [String: Any]
            metadata["issuer"] = fake.issuer
            profile["metadata"] = metadata
        }
        #expect(sandbox.run(["token", "--raw"]).status == 4)
        expectOneLineError(
            sandbox.run(["login", "--timeout", "30"]), status: 2, rule: "profile-unverified",
            contains: [
                "names the issuer \(fake.issuer) with the CA file /tmp/attacker-ca.pem", "no token cache vouches", "give --issuer URL",
            ],
            secrets: [])
        #expect(fake.requests.isEmpty, "the changed issuer was not contacted")
        #expect(sandbox.login(emulator).status == 0)
        #expect(sandbox.run(["token", "--raw"]).stdout == emulator.newestTokenLine)
    }
}

@Suite("local hardening: special files in place of pingcli's files")
struct SpecialFileTests {
    enum Kind: String, CaseIterable, Sendable { case fifo, symlink }

    @Test(
        "special-files: a FIFO or a symlink at tokens.enc, key, profile.json or tokens.lock is refused in one line by token, status and login, without hanging or creating a link's target",
        arguments: ["tokens.enc", "key", "profile.json", "tokens.lock"], Kind.allCases)
    func specialFile(file: String, kind: Kind) throws {
        let (emulator, sandbox, _) = try expiringSession()  // token must refresh, so it takes the lock
        let path =
            file == "key"
            ? sandbox.keyFile : file == "profile.json" ? sandbox.profileDirectory + "/" + file : sandbox.stateDirectory + "/" + file
        let outside = sandbox.root + "/outside-\(file)"
        if FileManager.default.fileExists(atPath: path) {
            try FileManager.default.moveItem(atPath: path, toPath: outside)
        }
        switch kind {
        case .fifo: #expect(mkfifo(path, 0o600) == 0)
        case .symlink:
            // For the lock, a dangling link: following it would create the target outside the profile.
            if file == "tokens.lock" { try? FileManager.default.removeItem(atPath: outside) }
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: outside)
        }
        let what = kind == .fifo ? "FIFO" : "symbolic link"
        let rule = kind == .fifo ? "file-type-refused" : "file-symlink-refused"
        let token = sandbox.run(["token", "--raw"], timeout: 30)
        expectOneLineError(token, status: 1, rule: rule, contains: ["refusing to use \(path)", what], secrets: emulator.issuedAccessTokens)

        let status = sandbox.run(["status"], timeout: 30)
        if file != "tokens.lock" {  // status never takes the lock
            #expect(status.status == 1, "the same exit status as token: \(status)")
            #expect(status.stdout.contains("refusing to use \(path)"), "\(status)")
        } else {
            #expect(status.status == 0, "\(status)")
        }

        let launched = sandbox.browserLaunches
        let login = sandbox.run(
            ["login", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--timeout", "30"], timeout: 30)
        expectOneLineError(login, status: 1, rule: rule, contains: ["refusing to use \(path)", what], secrets: [])
        #expect(sandbox.browserLaunches == launched, "no browser before the checks")
        if file == "tokens.lock" && kind == .symlink {
            #expect(!FileManager.default.fileExists(atPath: outside), "the link's target was not created")
        }
    }

    @Test(
        "key-dir-0775: a key directory or profile directory that group or others may write is refused before discovery and before any browser",
        arguments: ["data/pingcli", "config/pingcli/profiles/default"])
    func openDirectoryBeforeBrowser(directory: String) throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        let path = sandbox.root + "/" + directory
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        chmod(path, 0o775)
        let run = sandbox.login(emulator)
        expectOneLineError(
            run, status: 1, rule: "file-mode-refused", contains: ["refusing to use \(path)", "mode 775", "chmod go-w \(path)"],
            secrets: emulator.issuedAccessTokens)
        #expect(sandbox.browserLog.isEmpty, "the browser was launched: \(sandbox.browserLog)")
        #expect(emulator.requests.isEmpty, "nothing was asked of the provider")
    }
}

@Suite("local hardening: the key command and the lock")
struct KeyCommandLimitTests {
    /// Processes whose command line contains `marker`.
    func processes(containing marker: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).filter { entry in
            guard Int(entry) != nil, let text = readText("/proc/\(entry)/cmdline") else { return false }
            return text.contains(marker)
        }
    }

    @Test("key-command-timeout: a key command that hangs is stopped after PINGCLI_KEY_COMMAND_TIMEOUT with its whole process group, exit 1")
    func hangingKeyCommand() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        // A marker no other test uses, so the check below sees only this command's processes.
        let marker = "\(Int.random(in: 100_000...999_999)).5"
        let environment = ["PINGCLI_KEY_COMMAND": "sleep \(marker) & sleep \(marker)", "PINGCLI_KEY_COMMAND_TIMEOUT": "1"]
        let run = sandbox.login(emulator, environment: environment)
        expectOneLineError(
            run, status: 1, rule: "key-command-timeout",
            contains: ["PINGCLI_KEY_COMMAND did not finish within 1 s", "PINGCLI_KEY_COMMAND_TIMEOUT"], secrets: [])
        #expect(emulator.requests.isEmpty)
        #expect(processes(containing: marker).isEmpty, "the key command's children were killed")
        expectOneLineError(
            sandbox.run(["token"], environment: ["PINGCLI_KEY_COMMAND": "true", "PINGCLI_KEY_COMMAND_TIMEOUT": "soon"]), status: 2,
            rule: "key-store-env",
            contains: ["PINGCLI_KEY_COMMAND_TIMEOUT must be a number of seconds"], secrets: [])
    }

    @Test("key-command-output-bounded: a key command that prints without end is stopped after 4 KiB")
    func endlessOutput() throws {
        let emulator = try startEmulator()
        defer { emulator.stop() }
        let run = Sandbox().login(emulator, environment: ["PINGCLI_KEY_COMMAND": "yes"])
        expectOneLineError(
            run, status: 1, rule: "key-command-output-bounded", contains: ["PINGCLI_KEY_COMMAND printed more than 4096 bytes"], secrets: [])
    }

    @Test("key-command-before-lock: the key command runs before the lock is taken, so a slow one never holds up other processes")
    func keyBeforeLock() throws {
        let key = Data((0..<32).map { UInt8($0 * 5 & 0xFF) }).base64EncodedString()
        let (emulator, sandbox) = try emulatorAndSandbox { $0.accessTokenLifetime = 20 }
        #expect(sandbox.login(emulator, environment: ["PINGCLI_KEY_COMMAND": "echo \(key)"]).status == 0)
        emulator.accessTokenLifetime = 3600
        // The key command itself checks that tokens.lock is free while it runs.
        let lock = sandbox.stateDirectory + "/tokens.lock"
        let command = "flock -n \(lock) true || { echo locked >&2; exit 9; }; echo \(key)"
        let run = sandbox.run(["token", "--raw"], environment: ["PINGCLI_KEY_COMMAND": command])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout == emulator.newestTokenLine)
        #expect(refreshes(emulator).count == 1)
    }
}
