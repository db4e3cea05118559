import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Runs `count` pingcli processes at once (one thread each, so they really start together).
func runConcurrently(_ sandbox: Sandbox, count: Int, arguments: @escaping @Sendable (Int) -> [String]) -> (runs: [CLIRun], seconds: Double)
{
    let results = Locked<[Int: CLIRun]>([:])
    let environment = sandbox.environment
    let group = DispatchGroup()
    let start = Date()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            let ruleFile = environment["HOME"]! + "/rule-\(index)-\(UUID().uuidString)"
            var run = runProcess(
                Locations.pingcli, arguments(index), environment: environment.merging(["PINGCLI_TEST_RULE_FILE": ruleFile]) { $1 },
                timeout: 120)
            run.rule = readText(ruleFile)
            results.withLock { $0[index] = run }
            group.leave()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    group.wait()
    let seconds = Date().timeIntervalSince(start)
    return (results.withLock { dictionary in (0..<count).map { dictionary[$0]! } }, seconds)
}

/// The refresh requests the emulator received.
func refreshes(_ emulator: Emulator) -> [RecordedRequest] {
    emulator.requests(to: .token).filter { $0.form["grant_type"] == "refresh_token" }
}

@Suite("token cache: concurrency", .serialized)
struct ConcurrencyTests {
    @Test("concurrent-refresh: 50 token --raw processes that all need a refresh send exactly one refresh and print the same new token")
    func fiftyProcesses() throws {
        let (emulator, sandbox, _) = try expiringSession()
        var faults = Faults()
        faults.delays = [.token: 0.3]  // a slow refresh widens the window for a second one
        emulator.faults = faults
        let (runs, seconds) = runConcurrently(sandbox, count: 50) { _ in ["token", "--raw"] }
        let newest = emulator.newestTokenLine
        #expect(refreshes(emulator).count == 1)
        #expect(runs.allSatisfy { $0.status == 0 }, "\(runs.first { $0.status != 0 }.map(\.description) ?? "")")
        #expect(runs.allSatisfy { $0.stdout == newest })
        #expect(emulator.issuedAccessTokens.count == 2)
        print(
            "concurrent-refresh: 50 processes, \(refreshes(emulator).count) refresh request(s), \(String(format: "%.2f", seconds)) s in all"
        )
    }

    @Test("concurrent-refresh-mixed: token and userinfo together still refresh once")
    func mixedWithUserinfo() throws {
        let (emulator, sandbox, _) = try expiringSession()
        let (runs, _) = runConcurrently(sandbox, count: 50) { index in index % 5 == 0 ? ["userinfo", "--raw"] : ["token", "--raw"] }
        #expect(refreshes(emulator).count == 1)
        #expect(runs.allSatisfy { $0.status == 0 })
        let newest = emulator.newestTokenLine
        for (index, run) in runs.enumerated() {
            if index % 5 == 0 {
                #expect(run.stdout.contains("\"sub\":"))
            } else {
                #expect(run.stdout == newest)
            }
        }
        // Every userinfo call used the new token: none was rejected.
        #expect(emulator.requests(to: .userinfo).allSatisfy { $0.status == 200 })
    }

    @Test("login-while-reading: scripts reading during a login see the old or the new token, never an error", arguments: [false, true])
    func loginWhileReading(otherIssuer: Bool) throws {
        let first = try startEmulator()
        let second = otherIssuer ? try startEmulator() : first
        defer {
            first.stop()
            second.stop()
        }
        let sandbox = Sandbox()
        #expect(sandbox.login(first).status == 0)
        let old = first.newestTokenLine
        var faults = Faults()
        faults.delays = [.token: 0.5]
        second.faults = faults
        let stop = Locked(false)
        let outputs = Locked<[CLIRun]>([])
        let group = DispatchGroup()
        for _ in 0..<3 {
            group.enter()
            Thread {
                while !stop.withLock({ $0 }) {
                    let run = sandbox.run(["token", "--raw"])
                    outputs.withLock { $0.append(run) }
                }
                group.leave()
            }.start()
        }
        let login = sandbox.login(second, ["--force"])  // another issuer on a profile with a session
        stop.withLock { $0 = true }
        group.wait()
        #expect(login.status == 0, "\(login)")
        let new = second.newestTokenLine
        let runs = outputs.withLock { $0 }
        #expect(runs.count >= 3)
        for run in runs {
            #expect(run.status == 0, "\(run)")
            #expect(run.stdout == old || run.stdout == new)
        }
        #expect(sandbox.run(["token", "--raw"]).stdout == new)
    }
}

@Suite("token cache: crashes")
struct CrashTests {
    /// Starts `pingcli` in the background, waits until `ready` holds, kills it with SIGKILL.
    func killWhen(_ sandbox: Sandbox, _ arguments: [String], environment: [String: String], ready: () -> Bool) -> Bool {
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = ([Locations.pingcli] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] =
            sandbox.environment.merging(environment) { $1 }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn(&pid, Locations.pingcli, &actions, nil, argv, envp)
        posix_spawn_file_actions_destroy(&actions)
        argv.forEach { free($0) }
        envp.forEach { free($0) }
        let deadline = Date().addingTimeInterval(20)
        var reached = false
        while Date() < deadline {
            if ready() {
                reached = true
                break
            }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return reached
    }

    func temporaryFiles(_ sandbox: Sandbox) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: sandbox.stateDirectory)) ?? []).filter { $0.contains(".tmp-") }
    }

    @Test("crash-inside-write: kill -9 with the new cache written but not renamed leaves the old set, still decryptable")
    func killInsideWrite() throws {
        let (emulator, sandbox, old) = try expiringSession()
        let reached = killWhen(sandbox, ["token", "--raw"], environment: ["PINGCLI_TEST_PAUSE_BEFORE_RENAME": "10"]) {
            !temporaryFiles(sandbox).isEmpty
        }
        #expect(reached, "the write was reached")
        #expect(refreshes(emulator).count == 1)
        // The old set is whole and decrypts; the server rotated, so the next refresh is refused (docs/security.md).
        let after = sandbox.run(["token", "--raw", "--min-ttl", "0"])
        #expect(after.status == 0, "\(after)")
        #expect(after.stdout == old)
        #expect(sandbox.run(["status"]).status == 0)
        // The killed writer's temporary file is cleared by the next write.
        #expect(temporaryFiles(sandbox).count == 1)
        #expect(sandbox.run(["logout"]).status == 0)
        #expect(sandbox.login(emulator).status == 0)
        #expect(temporaryFiles(sandbox).isEmpty)
    }

    @Test("crash-during-request: kill -9 while the refresh is in flight leaves the cache untouched and usable")
    func killDuringRequest() throws {
        let (emulator, sandbox, old) = try expiringSession()
        var faults = Faults()
        faults.delays = [.token: 3]
        emulator.faults = faults
        // Killed once the refresh has reached the emulator (which holds it for 3 s): in flight, whatever the
        // machine's speed, rather than at a guessed second after the start.
        let before = emulator.arrivals(to: .token)
        let reached = killWhen(sandbox, ["token", "--raw"], environment: [:]) { emulator.arrivals(to: .token) > before }
        #expect(reached, "the refresh reached the emulator")
        #expect(emulator.issuedAccessTokens.count == 1, "the refresh had not been answered when the process died")
        let after = sandbox.run(["token", "--raw", "--min-ttl", "0"])
        #expect(after.status == 0, "\(after)")
        #expect(after.stdout == old)
        #expect(sandbox.run(["status"]).status == 0)
    }

    @Test("crash-after-write: kill -9 right after the rename leaves the new set")
    func killAfterWrite() throws {
        let (_, sandbox, _) = try expiringSession()
        let run = sandbox.run(["token", "--raw"])
        #expect(run.status == 0)
        #expect(sandbox.run(["token", "--raw"]).stdout == run.stdout)
        #expect(temporaryFiles(sandbox).isEmpty)
    }

    @Test("crash-during-login-save: kill -9 inside the first login's write leaves no half-written cache")
    func killDuringLoginSave() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        let reached = killWhen(
            sandbox, ["login", "--issuer", emulator.issuer, "--client-id", "pingcli-test"],
            environment: ["PINGCLI_TEST_PAUSE_BEFORE_RENAME": "10"]
        ) { !temporaryFiles(sandbox).isEmpty }
        #expect(reached)
        #expect(!FileManager.default.fileExists(atPath: sandbox.stateDirectory + "/tokens.enc"))
        let run = sandbox.run(["token", "--raw"])
        #expect(run.status == 4)
        #expect(run.rule == "not-logged-in", "\(run)")
        // A new login succeeds despite the debris.
        #expect(sandbox.login(emulator).status == 0)
        #expect(sandbox.run(["token", "--raw"]).status == 0)
    }
}
