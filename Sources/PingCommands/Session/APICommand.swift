import PingBase
import PingCommandLine
import PingFlowCore
import PingHTTP
import PingLogin
import PingSession

#if canImport(Glibc)
    import Glibc
#endif

/// `pingcli api`: one authenticated HTTP request, the body untouched on stdout.
package enum APICommand {
    /// `api`'s own options.
    package enum Option: String, OptionName {
        case method, header, data, include, fail
        case maxBytes = "max-bytes"
    }

    package static let specs: [OptionSpec] =
        [
            OptionSpec(Option.method, valueName: "METHOD", help: "the HTTP method (default GET, or POST with --data)"),
            OptionSpec(Option.header, valueName: "'NAME: VALUE'", repeatable: true, help: "a request header (repeatable)"),
            OptionSpec(Option.data, valueName: "@FILE|-|TEXT", help: "the request body: a file, standard input, or the text itself"),
            OptionSpec(Option.include, help: "print the status and the response headers on stderr"),
            OptionSpec(Option.fail, help: "exit 6 when the status is not 2xx (the body is still printed)"),
            OptionSpec(
                Option.maxBytes, valueName: "BYTES", help: "largest response body accepted (default \(defaultMaxBytes), 16 MiB)"),
            MinimumTTLOption.spec,
        ] + TargetOptions.specs + CommonOptions.specs

    package static let defaultMaxBytes = 16 << 20
    /// Largest request body read from a file or standard input.
    package static let maximumBodyBytes = 64 << 20

    package static let help = helpText(
        usage:
            "pingcli api [--method M] [--header 'K: V']... [--data @FILE|-|TEXT] [--include] [--fail] [--scope S] [--resource URI] [--audience NAME] URL",
        summary: """
            Sends one HTTP request with the profile's access token (Authorization: Bearer, or DPoP with a
            fresh proof for a profile logged in with --dpop) and writes the response body to stdout exactly as
            received; status, headers (--include) and errors go to stderr. A relative URL is appended to the
            profile's API base (login --api-base URL). The token goes only to the URL's origin: redirects to
            another origin are followed without it, https never to http. A 401 is answered by one refresh and
            one retry. Plain http only to loopback hosts. Exit 6 with --fail when the status is not 2xx.
            --scope, --resource and --audience send a token for just that, as pingcli token gets them.
            """,
        specs: specs)

    package static func run(_ arguments: [String], environment: Environment, context: CommandContext) throws(PingCLIError) {
        let (named, positional) = try splitPositional(arguments, specs: specs)
        let parsed = try parseOptions(named, specs: specs, command: "api")
        if parsed.flag(CommonOption.help) { return context.console.help(help) }
        guard positional.count == 1, let url = positional.first else {
            throw .usage(
                positional.isEmpty
                    ? "pingcli api needs a URL: see pingcli api --help" : "pingcli api takes one URL, not \(positional.count)",
                rule: .commandOperand)
        }
        let common = try CommonOptions(parsed, environment: environment)
        var headers: [(name: String, value: String)] = []
        for line in parsed.all(Option.header) { headers.append(try header(line)) }
        let body = try parsed.value(Option.data).map { text throws(PingCLIError) in try data(text, input: context.input) }
        if body != nil && !headers.contains(where: { $0.name.lowercased() == "content-type" }) {
            headers.append(("Content-Type", "application/json"))
        }
        let methodText = parsed.value(Option.method)?.uppercased() ?? (body == nil ? "GET" : "POST")
        guard MediaType.isToken(methodText[...]), methodText.utf8.count <= 32 else {
            throw .usage(
                "--method \(displaySafe(methodText, limit: 40)) is not an HTTP method: e.g. GET, POST, PUT, PATCH, DELETE",
                rule: .httpMethodGate)
        }
        var maxBytes = defaultMaxBytes
        if let text = parsed.value(Option.maxBytes) {
            guard let value = Int(text), value > 0, value <= 1 << 30 else {
                throw .usage(
                    "--max-bytes must be a number of bytes from 1 to 1073741824, not \"\(displaySafe(text, limit: 30))\"",
                    rule: .apiMaxBytes)
            }
            maxBytes = value
        }
        let options = APIRequestOptions(
            profile: common.profile, method: HTTPRequest.Method(rawValue: methodText), url: url, headers: headers, body: body,
            include: parsed.flag(Option.include), fail: parsed.flag(Option.fail), maxResponseBytes: maxBytes,
            minimumTTL: try MinimumTTLOption.value(parsed), target: try TargetOptions.target(parsed))
        try APIRequestFlow(options: options, context: common.applied(to: context).forSession).run()
    }

    /// The URL given without an option name, apart from the options and their values.
    package static func splitPositional(_ arguments: [String], specs: [OptionSpec]) throws(PingCLIError) -> ([String], [String]) {
        var options: [String] = []
        var positional: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--") || argument == "-h" else {
                positional.append(argument)
                continue
            }
            options.append(argument)
            let name = String(argument.dropFirst(2))
            if let spec = specs.first(where: { $0.name == name }), spec.takesValue, index < arguments.count {
                options.append(arguments[index])
                index += 1
            }
        }
        return (options, positional)
    }

    /// `--header 'Name: value'`: a token name, a value without control characters. `Authorization` and
    /// `DPoP` are pingcli's to set.
    package static func header(_ line: String) throws(PingCLIError) -> (name: String, value: String) {
        guard let colon = line.firstIndex(of: ":") else {
            throw .usage("--header needs 'NAME: VALUE', not \"\(displaySafe(line, limit: 60))\"", rule: .apiHeaderGate)
        }
        let name = String(line[..<colon])
        let value = line[line.index(after: colon)...].trimmingWhitespace
        guard MediaType.isToken(name[...]) else {
            throw .usage("--header: \"\(displaySafe(name, limit: 60))\" is not a header name", rule: .apiHeaderGate)
        }
        guard isSafeHeaderValue(value) else { throw .usage("--header \(name): the value holds a control character", rule: .apiHeaderGate) }
        guard !["authorization", "dpop"].contains(name.lowercased()) else {
            throw .usage("--header cannot set \(name): pingcli sets it from the profile's token", rule: .apiHeaderGate)
        }
        return (name, value)
    }

    /// `--data`: `@FILE` read whole, `-` standard input, anything else the text itself.
    package static func data(_ text: String, input: Int32) throws(PingCLIError) -> [UInt8] {
        if text == "-" { return try readAll(input, what: "standard input") }
        guard text.hasPrefix("@") else { return Array(text.utf8) }
        let path = String(text.dropFirst())
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            throw .usage(
                "--data @\(displaySafe(path, limit: 200)): \(reason): give a file that exists, - for standard input, or the text",
                rule: .apiDataInput)
        }
        defer { close(descriptor) }
        return try readAll(descriptor, what: displaySafe(path, limit: 200))
    }

    private static func readAll(_ descriptor: Int32, what: String) throws(PingCLIError) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw .usage("--data: cannot read \(what): \(String(cString: strerror(errno)))", rule: .apiDataInput) }
            if count == 0 { return bytes }
            bytes += buffer[..<count]
            guard bytes.count <= maximumBodyBytes else { throw .usage("--data: \(what) is larger than 64 MiB", rule: .apiDataInput) }
        }
    }
}
