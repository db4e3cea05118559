// ping-emulator: runs the PingOne / PingFederate / PingAM emulator on a loopback port (for `make demo`).
// Its options are read by `EmulatorCommandLine` (PingEmulator/CommandLine), from the one table the help is made of.
import Foundation
import PingEmulator

#if canImport(Glibc)
    import Glibc
#endif

/// The command line read, or the help shown or a usage error said (exit 2).
func commandLine() -> EmulatorCommandLine {
    do {
        switch try EmulatorCommandLine.parse(Array(CommandLine.arguments.dropFirst())) {
        case .run(let line): return line
        case .help:
            print(EmulatorOption.usage, terminator: "")
            exit(0)
        }
    } catch {
        FileHandle.standardError.write(Data("ping-emulator: \(error.message) (see --help)\n".utf8))
        exit(2)
    }
}

/// Starts the emulator, says where it listens, and serves until SIGINT or SIGTERM.
func serve(_ line: EmulatorCommandLine) -> Never {
    var configuration = line.configuration
    // One stderr line per request: method, path (no query) and status. Never token or code values.
    configuration.onRequest = { record in
        FileHandle.standardError.write(Data("\(record.method) \(record.path) \(record.status)\n".utf8))
    }

    // Block SIGINT/SIGTERM before any thread exists (threads inherit the mask); the main thread sigwait()s.
    // Restore default dispositions first: a shell starts background jobs with SIGINT ignored, and Linux
    // discards ignored signals even while they are blocked, so sigwait() would never see them.
    signal(SIGINT, SIG_DFL)
    signal(SIGTERM, SIG_DFL)
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGINT)
    sigaddset(&signals, SIGTERM)
    pthread_sigmask(SIG_BLOCK, &signals, nil)

    let emulator: Emulator
    do {
        emulator = try Emulator(configuration: configuration)
    } catch {
        FileHandle.standardError.write(Data("ping-emulator: \(error)\n".utf8))
        exit(1)
    }
    emulator.start()
    print("issuer: \(emulator.issuer)")
    if let mtls = emulator.mtlsBaseURL { print("mutual TLS: \(mtls)") }
    if let am = emulator.amBaseURL { print("PingAM: \(am) (session cookie \(configuration.journeys.cookieName))") }
    fflush(nil)  // flushes stdout (referencing the `stdout` global is not concurrency-safe)
    if let readyFile = line.readyFile {
        do {
            try Data((emulator.issuer + "\n").utf8).write(to: URL(fileURLWithPath: readyFile), options: .atomic)
        } catch {
            FileHandle.standardError.write(Data("ping-emulator: cannot write ready file: \(error)\n".utf8))
            emulator.stop()
            exit(1)
        }
    }

    var received: Int32 = 0
    sigwait(&signals, &received)
    emulator.stop()
    exit(0)
}

serve(commandLine())
