import PingCLICore

#if canImport(Glibc)
    import Glibc
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
// `--version` reads no environment: answered before building the dictionary, whose generic metadata
// (and the protocol conformance scan it starts) is most of what a Swift program's start-up pays for.
if arguments == ["--version"] || arguments == ["version"] { exit(PingCLI.main(arguments: arguments, environment: [:])) }
// Read the environment straight from `environ`: no Foundation at start-up.
var environment: [String: String] = [:]
var entry = environ
while let pointer = entry.pointee {
    // Split at the first `=` byte, as POSIX does; no Character walk over every variable.
    let text = UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer))
    if let equals = text.firstIndex(of: UInt8(ascii: "=")) {
        environment[String(decoding: text[..<equals], as: UTF8.self)] = String(decoding: text[(equals + 1)...], as: UTF8.self)
    }
    entry += 1
}
// The client secret must not reach the browser, the key command or any other child: it leaves the
// environment every child inherits before anything starts.
unsetenv("PINGCLI_CLIENT_SECRET")
exit(PingCLI.main(arguments: arguments, environment: environment))
