import PingCLICore

#if canImport(Glibc)
    import Glibc
#endif

// `--version` reads no environment: answered from argv before building the argument array and the
// dictionary, whose generic metadata is most of what a Swift program's start-up pays for.
if CommandLine.argc == 2, let first = CommandLine.unsafeArgv[1], strcmp(first, "--version") == 0 || strcmp(first, "version") == 0 {
    exit(PingCLI.version())
}
let arguments = Array(CommandLine.arguments.dropFirst())
// Read the environment straight from `environ`: no Foundation at start-up.
// Sized once for every variable: growing it rehashed everything read so far, several times over.
var variables = 0
while environ[variables] != nil { variables += 1 }
var environment = [String: String](minimumCapacity: variables)
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
