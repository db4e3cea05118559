import Testing

@testable import PingBase
@testable import PingLogin
@testable import PingRedirect

#if canImport(Glibc)
    import Glibc
#endif

@Suite("pasted redirect address (a browser on another machine)")
struct PastedAddressTests {
    @Test("the address the browser ended on becomes the request the listener would have parsed")
    func accepted() {
        let expected = LoopbackRequest(method: "GET", path: "/callback", query: "code=C&state=S&iss=https%3A%2F%2Fa")
        #expect(PastedAddress("http://127.0.0.1:8765/callback?code=C&state=S&iss=https%3A%2F%2Fa", port: 8765) == .request(expected))
        #expect(PastedAddress("  http://127.0.0.1:8765/callback?code=C&state=S&iss=https%3A%2F%2Fa\r", port: 8765) == .request(expected))
        #expect(
            PastedAddress("http://127.0.0.1:8765/callback?code=C&state=S&iss=https%3A%2F%2Fa#fragment", port: 8765) == .request(expected))
    }

    @Test("a blank line is nothing to answer")
    func blank() {
        #expect(PastedAddress("", port: 1) == .empty)
        #expect(PastedAddress(" \t\r", port: 1) == .empty)
    }

    @Test(
        "paste-wrong-address: another port, the sign-in URL, or text that is no address is refused with the reason",
        arguments: [
            ("http://127.0.0.1:9999/callback?code=C&state=S", "another port"),
            ("http://localhost:8765/callback?code=C&state=S", "another port"),
            ("http://127.0.0.1:87650/callback?code=C", "another port"),
            ("http://example.com:8765/callback?code=C&state=S", "does not start with http://127.0.0.1:8765/"),
            ("https://auth.pingone.com/env/as/authorize?client_id=x", "not the sign-in address"),
            ("code=C&state=S", "not an address"),
            ("http://127.0.0.1:8765/callback?state=a b&code=C", "spaces or control characters"),
            ("http://127.0.0.1:8765/callback?state=\u{7F}&code=C", "spaces or control characters"),
            ("http://127.0.0.1:8765/callback?state=é&code=C", "unsupported request target"),
        ])
    func refused(text: String, reason: String) {
        guard case .rejected(let message) = PastedAddress(text, port: 8765) else {
            Issue.record("accepted \(text)")
            return
        }
        #expect(message.contains(reason), "\(message)")
        #expect(!message.contains("code=C"), "the reason never quotes the pasted text")
    }
}

@Suite("line reader for pasted input")
struct LineReaderTests {
    /// A pipe with `bytes` written and the write end closed, read to its end.
    func events(_ chunks: [String]) -> [LineReader.Event] {
        var ends: [Int32] = [0, 0]
        pipe(&ends)
        defer { close(ends[0]) }
        let reader = LineReader(descriptor: ends[0])
        var events: [LineReader.Event] = []
        for chunk in chunks {
            _ = Array(chunk.utf8).withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) }
            events += reader.readAvailable()
        }
        close(ends[1])
        while !reader.atEnd { events += reader.readAvailable() }
        return events
    }

    @Test("lines split across reads are joined, and a last line without a newline counts at the end")
    func lines() {
        #expect(events(["first\nsec", "ond\n", "\nlast"]) == [.line("first"), .line("second"), .line(""), .line("last")])
    }

    @Test("paste-too-long: a line over 8 KiB is dropped once, and the next line is read normally")
    func tooLong() {
        let long = String(repeating: "a", count: LineReader.maximumLineBytes + 1)
        #expect(events([long, "more of it\n", "next\n"]) == [.tooLong, .line("next")])
    }

    @Test("the end of input stops the reading (Ctrl-D, /dev/null)")
    func endOfInput() {
        let descriptor = open("/dev/null", O_RDONLY)
        defer { close(descriptor) }
        let reader = LineReader(descriptor: descriptor)
        #expect(reader.mayRead)
        #expect(reader.readAvailable().isEmpty)
        #expect(reader.atEnd)
        #expect(!reader.mayRead)
    }
}

@Suite("browser or not: SSH sessions without a display")
struct RemoteSessionTests {
    @Test(
        "ssh-no-display: an SSH session without X11 or Wayland does not launch a browser, unless PINGCLI_BROWSER says so",
        arguments: [
            (["SSH_CONNECTION": "10.0.0.1 50000 10.0.0.2 22"], true),
            (["SSH_TTY": "/dev/pts/3"], true),
            (["SSH_CONNECTION": "10.0.0.1 50000 10.0.0.2 22", "DISPLAY": "localhost:10.0"], false),
            (["SSH_CONNECTION": "10.0.0.1 50000 10.0.0.2 22", "WAYLAND_DISPLAY": "wayland-0"], false),
            (["SSH_CONNECTION": "10.0.0.1 50000 10.0.0.2 22", "PINGCLI_BROWSER": "w3m"], false),
            (["SSH_CONNECTION": "", "DISPLAY": ""], false),
            ([:], false),
        ])
    func remote(environment: [String: String], expected: Bool) {
        #expect(LoginCommand.isRemoteWithoutDisplay(Environment(environment)) == expected)
    }
}
