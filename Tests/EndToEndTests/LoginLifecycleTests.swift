import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A login's life as a process: the key store named once, one login of a profile at a time, nothing left
/// behind by one that was cancelled or failed.
@Suite("login lifecycle: the key store announced, concurrent logins, cancelled logins")
struct LoginLifecycleTests {
    @Test(
        "key-store-first-success: a first login that fails makes the key silently; the next, successful one still says where the key is"
    )
    func keyStoreAnnounced() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        let failed = sandbox.run(
            ["login", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--timeout", "1"],
            environment: ["PINGCLI_BROWSER": "true"])
        #expect(failed.rule == "login-timeout", "\(failed)")
        #expect(failed.status == 1 && !failed.stderr.contains("cache key"), "\(failed)")
        #expect(FileManager.default.fileExists(atPath: sandbox.keyFile), "the failed login made the key")
        let first = sandbox.login(emulator)
        #expect(first.status == 0, "\(first)")
        #expect(
            first.stderr.contains("The cache key is the file \(sandbox.keyFile) (pingcli key migrate --to keyring moves it"), "\(first)")
        let second = sandbox.login(emulator, ["--profile", "other"])
        #expect(second.status == 0 && !second.stderr.contains("cache key"), "said once: \(second)")
    }

    @Test(
        "login-serialised: a second login of a profile while one waits for the browser refuses in one line, naming the first; another profile is not held up"
    )
    func concurrentLogins() throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        let first = try InteractiveRun.login(sandbox, emulator, browser: "true")
        #expect(first.line { $0.hasPrefix("Waiting up to") } != nil, "\(first.stderr)")
        let second = sandbox.run(["login", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--timeout", "5"])
        #expect(second.status == 1 && second.stdout.isEmpty, "\(second)")
        #expect(
            second.stderr
                == "pingcli: another pingcli login of profile \"default\" is running (pid \(first.pid) (pingcli login)): if it is stuck, end it (kill \(first.pid)), then try again\n",
            "\(second)")
        #expect(sandbox.browserLog.isEmpty && emulator.requests(to: .discovery).count == 1, "the second opened no tab")
        let other = sandbox.login(emulator, ["--profile", "other"])
        #expect(other.status == 0, "\(other)")
        kill(first.pid, SIGTERM)
        _ = first.finish()
    }

    @Test(
        "cancelled-login-clean: a first login ended by Ctrl-C, or one that fails, leaves no profile directory behind",
        arguments: ["interrupt", "timeout"])
    func cancelledLogin(how: String) throws {
        let (emulator, sandbox) = try emulatorAndSandbox()
        if how == "interrupt" {
            let login = try InteractiveRun.login(sandbox, emulator, browser: "true", defaultSignals: true)
            #expect(login.line { $0.hasPrefix("Waiting up to") } != nil, "\(login.stderr)")
            #expect(FileManager.default.fileExists(atPath: sandbox.stateDirectory), "the login made its directories")
            kill(login.pid, SIGINT)
            let run = login.finish()
            #expect(run.status == 128 + SIGINT || run.status == 130, "\(run)")
        } else {
            let run = sandbox.run(
                ["login", "--issuer", emulator.issuer, "--client-id", "pingcli-test", "--timeout", "1"],
                environment: ["PINGCLI_BROWSER": "true"])
            #expect(run.status == 1, "\(run)")
        }
        #expect(!FileManager.default.fileExists(atPath: sandbox.profileDirectory), "left \(sandbox.profileDirectory)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.stateDirectory), "left \(sandbox.stateDirectory)")
        #expect(sandbox.run(["profiles", "--names"]).stdout.isEmpty)
    }
}
