import Foundation
import PingEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The terminal's echo at a secret prompt, with the built binary on a pseudo-terminal: Ctrl-C at
/// `otp add`'s hidden paste gives the terminal back with echo on, and Ctrl-Z then `fg` in a job-control
/// shell reads the secret with echo still off (the shell's own settings while pingcli is stopped), for
/// `otp add` and a journey's password alike: one piece (`EchoOff`) behind every secret prompt.
@Suite("secret prompts keep echo off, on a terminal")
struct SecretEchoEndToEndTests {
    static let uri = "otpauth://totp/ACME:alice?secret=JBSWY3DPEHPK3PXP&issuer=ACME"

    @Test("secret-echo-ctrl-c: Ctrl-C at otp add's hidden paste ends pingcli (130) and the terminal's echo is back on")
    func ctrlCAtPaste() throws {
        let sandbox = Sandbox()
        let terminal = try TerminalSession(sandbox, ["otp", "add"])
        #expect(terminal.waitFor("Paste the otpauth:// URI") && terminal.waitForEchoOff(), "\(terminal.screen)")
        terminal.type("otpauth://totp/half-pasted")
        terminal.type("\u{3}")
        let run = terminal.finish()
        #expect(run.status == 130, "\(run)")
        #expect(terminal.localModes & tcflag_t(ECHO) != 0, "Ctrl-C left the terminal without echo")
    }

    /// An interactive bash (job control on) on a new terminal, running `command`; its prompt is `$ `.
    static func shell(_ sandbox: Sandbox, _ command: String) throws -> TerminalSession {
        let terminal = try TerminalSession(
            sandbox, ["--norc", "--noprofile", "-i"], executable: "/bin/bash", environment: ["PS1": "$ ", "TERM": "dumb"])
        #expect(terminal.waitFor("$ "), "\(terminal.screen)")
        terminal.type(command + "\n")
        return terminal
    }

    /// Waits (a minute at most) until the terminal's shell has a child and none is stopped (state T in
    /// /proc/PID/stat): `fg` has continued pingcli. An event the kernel records, not a guess at how long
    /// bash takes to send SIGCONT.
    static func waitForContinued(_ terminal: TerminalSession) -> Bool {
        func stopped() -> Bool {
            let children = (readText("/proc/\(terminal.pid)/task/\(terminal.pid)/children") ?? "").split { $0 == " " || $0 == "\n" }
            // No child yet counts as stopped: pingcli waits for the secret, so it is there to be seen.
            return children.isEmpty
                || children.contains { child in
                    let stat = readText("/proc/\(child)/stat") ?? ""
                    return stat.range(of: ") ").map { stat[$0.upperBound...].hasPrefix("T") } ?? false
                }
        }
        for _ in 0..<3000 {
            if !stopped() { return true }
            usleep(20_000)
        }
        return false
    }

    /// Ctrl-Z at the secret prompt, the shell's `Stopped`, then `fg`: the secret is typed once pingcli
    /// has turned echo off again, and must not show.
    static func stopAndContinue(_ terminal: TerminalSession, typing secret: String, sourceLocation: SourceLocation = #_sourceLocation) {
        terminal.type("\u{1a}")
        #expect(terminal.waitFor("Stopped"), "Ctrl-Z did not stop pingcli:\n\(terminal.screen)", sourceLocation: sourceLocation)
        #expect(terminal.waitFor("$ "), "\(terminal.screen)", sourceLocation: sourceLocation)
        terminal.type("fg\n")
        // bash names the job it continues; once the kernel shows pingcli running again (no longer stopped),
        // its SIGCONT handler turns echo off (without the fix it stays on).
        #expect(terminal.waitFor(Locations.pingcli), "\(terminal.screen)", sourceLocation: sourceLocation)
        #expect(Self.waitForContinued(terminal), "pingcli stayed stopped after fg", sourceLocation: sourceLocation)
        #expect(terminal.waitForEchoOff(), "echo stayed on after fg", sourceLocation: sourceLocation)
        terminal.type(secret + "\n")
    }

    @Test("secret-echo-ctrl-z: otp add's hidden paste, stopped with Ctrl-Z and continued with fg, still reads the URI without echo")
    func ctrlZAtPaste() throws {
        let sandbox = Sandbox()
        let terminal = try Self.shell(sandbox, "\(Locations.pingcli) otp add")
        #expect(terminal.waitFor("Paste the otpauth:// URI") && terminal.waitForEchoOff(), "\(terminal.screen)")
        Self.stopAndContinue(terminal, typing: Self.uri)
        #expect(terminal.waitFor("Added the OTP account \"ACME:alice\""), "\(terminal.screen)")
        terminal.type("exit\n")
        let run = terminal.finish(timeout: 10)
        #expect(!run.stdout.contains("JBSWY3DPEHPK3PXP"), "the secret was echoed after fg:\n\(run.stdout)")
        #expect(sandbox.run(["otp", "list"]).stdout.contains("ACME:alice"))
    }

    @Test("secret-echo-ctrl-z: a journey's password prompt, stopped with Ctrl-Z and continued with fg, reads the password without echo")
    func ctrlZAtPassword() throws {
        let (emulator, sandbox) = sandboxed(try AMJourneys.emulator())
        let command = AMJourneys.login(emulator, tree: "Login").map { "'\($0)'" }.joined(separator: " ")
        let terminal = try Self.shell(sandbox, "\(Locations.pingcli) \(command)")
        terminal.answer("User Name: ", "alice")
        #expect(terminal.waitFor("Password: ") && terminal.waitForEchoOff(), "\(terminal.screen)")
        Self.stopAndContinue(terminal, typing: AMJourneys.password)
        #expect(terminal.waitFor("Logged in to"), "\(terminal.screen)")
        terminal.type("exit\n")
        let run = terminal.finish(timeout: 10)
        #expect(!run.stdout.contains(AMJourneys.password), "the password was echoed after fg:\n\(run.stdout)")
    }
}
