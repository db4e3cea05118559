import PingCLICore

#if canImport(Glibc)
    import Glibc
#endif

// Read the environment straight from `environ`: no Foundation at start-up.
var environment: [String: String] = [:]
var entry = environ
while let pointer = entry.pointee {
    let text = String(cString: pointer)
    if let equals = text.firstIndex(of: "=") {
        environment[String(text[..<equals])] = String(text[text.index(after: equals)...])
    }
    entry += 1
}
// The client secret must not reach the browser, the key command or any other child: it leaves the
// environment every child inherits before anything starts.
unsetenv("PINGCLI_CLIENT_SECRET")
exit(PingCLI.main(arguments: Array(CommandLine.arguments.dropFirst()), environment: environment))
