import Foundation
import Testing

@testable import PingEmulator

/// The executable's options read from the one table (EmulatorOption): each has its help, the help lists
/// each, and a command line becomes the configuration it names, or one usage error.
@Suite("emulator command line")
struct EmulatorCommandLineTests {
    func configuration(_ arguments: [String]) throws -> EmulatorCommandLine {
        guard case .run(let line) = try EmulatorCommandLine.parse(arguments) else {
            Issue.record("expected a configuration, got the help")
            throw EmulatorUsageError(message: "help")
        }
        return line
    }

    @Test("emulator-options-table: every option has its help, and the help lists every option once")
    func table() {
        let usage = EmulatorOption.usage
        for option in EmulatorOption.allCases {
            #expect(!option.help.isEmpty || option == .layout, "\(option.rawValue) has no help")
            #expect(
                usage.components(separatedBy: "  " + option.rawValue + " ").count
                    + usage.components(separatedBy: "  " + option.rawValue + "\n").count - 2 == 1, "\(option.rawValue)")
        }
        #expect(usage.hasPrefix("usage: ping-emulator [options]\n"))
    }

    @Test("emulator-options-parse: values and switches reach the configuration; the clients get the secret and consent")
    func parse() throws {
        let line = try configuration([
            "--port", "8080", "--layout", "PingAM", "--client-id", "a", "--client-id", "b", "--client-secret", "s",
            "--refresh-token-rolling-duration", "none", "--exact-ports", "--short-issuer", "--no-implied-consent", "--ready-file", "/tmp/r",
        ])
        #expect(line.configuration.port == 8080 && line.configuration.layout == .pingAM)
        #expect(line.configuration.clients.map(\.clientID) == ["a", "b"])
        #expect(line.configuration.clients.allSatisfy { $0.clientSecret == "s" && !$0.impliedConsent })
        #expect(line.configuration.refreshTokenRollingDuration == nil)
        #expect(line.configuration.exactRedirectPorts && line.configuration.journeys.shortIssuer)
        #expect(line.readyFile == "/tmp/r")
    }

    @Test(
        "emulator-options-refused: an unknown option, a missing value or a bad one is one usage error naming the option",
        arguments: [
            (["--nope"], "unknown argument --nope"), (["--port"], "--port needs a value"), (["--port", "70000"], "--port"),
            (["--refresh-token-grace", "86401"], "--refresh-token-grace"), (["--tls-cert", "c.pem"], "--tls-cert and --tls-key"),
            (["--totp-secret", "nobody=JBSWY3DPEHPK3PXP"], "no user nobody"),
        ])
    func refused(arguments: [String], message: String) {
        #expect(throws: EmulatorUsageError.self) { _ = try EmulatorCommandLine.parse(arguments) }
        do {
            _ = try EmulatorCommandLine.parse(arguments)
        } catch {
            #expect(error.message.contains(message), "\(error.message)")
        }
    }

    @Test("emulator-options-help: --help and -h ask for the help")
    func help() throws {
        for flag in ["--help", "-h"] {
            guard case .help = try EmulatorCommandLine.parse(["--port", "0", flag]) else {
                Issue.record("\(flag) did not ask for the help")
                continue
            }
        }
    }
}
