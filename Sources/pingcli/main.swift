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
exit(PingCLI.main(arguments: Array(CommandLine.arguments.dropFirst()), environment: environment))
