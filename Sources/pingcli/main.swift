import CArguments
import PingBase
import PingCommands

#if canImport(Glibc)
    import Glibc
#endif

// SWIFT_BACKTRACE back as the process got it: CArguments turned the runtime's crash catcher off with it.
pingcli_restore_environment()
// `--version` reads no environment: answered from argv before building the argument array, whose
// generic metadata is most of what a Swift program's start-up pays for.
var argc: Int32 = 0
let argv = pingcli_process_arguments(&argc)
if argc == 2, let first = argv?[1], strcmp(first, "--version") == 0 || strcmp(first, "version") == 0 {
    exit(PingCLI.finished(PingCLI.version()))
}
// The arguments after the program's name, straight from argv: `CommandLine.arguments` would make a
// string of the name too and the array copied once more.
var arguments: [String] = []
if argc > 1 {
    arguments.reserveCapacity(Int(argc) - 1)
    for index in 1..<Int(argc) {
        if let argument = argv?[index] { arguments.append(String(cString: argument)) }
    }
}
// The environment is read by name when a command asks (`getenv`): no dictionary of every variable.
var environment = Environment.process
// The client secret must not reach the browser, the key command or any other child: it leaves the
// environment every child inherits before anything starts, and stays in the command's own.
if let secret = getenv("PINGCLI_CLIENT_SECRET") { environment["PINGCLI_CLIENT_SECRET"] = String(cString: secret) }
unsetenv("PINGCLI_CLIENT_SECRET")
exit(PingCLI.finished(PingCLI.main(arguments: arguments, environment: environment)))
