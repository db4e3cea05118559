import Synchronization
import Testing

@testable import PingBase
@testable import PingPlatform
@testable import PingRedirect

#if canImport(Glibc)
    import Glibc
#endif

@Suite("loopback listener: what it writes, and who it is talking to")
struct ListenerReplyTests {
    /// Serves one request with `reply`, and returns what a client received and who the listener saw.
    func exchange(_ reply: LoopbackReply) throws -> (String, PeerIdentity?) {
        let listener = try LoopbackListener(port: 0)
        let port = listener.port
        let answer = Mutex("")
        let client = Thread { answer.withLock { $0 = rawExchange(port: port, Array("GET /start HTTP/1.1\r\n\r\n".utf8)) } }
        client.start()
        var seen: PeerIdentity? = nil
        _ = listener.serve(until: MonotonicClock.now() + 20) { request in
            seen = request.peer()  // while the client is connected: its socket is in the table
            var final = reply
            final.finishes = true
            return final
        }
        client.join()
        return (answer.withLock { $0 }, seen)
    }

    @Test("location-splitting: a Location with CR/LF is never written; the reply is a 500 without the injected headers")
    func locationSplitting() throws {
        let (answer, _) = try exchange(
            LoopbackReply(status: 302, html: "", finishes: true, location: "https://idp.example/end\r\nSet-Cookie: pwned=1\r\nRefresh: 0"))
        #expect(answer.hasPrefix("HTTP/1.1 500"), "\(answer)")
        #expect(!answer.contains("Set-Cookie") && !answer.contains("Refresh:") && !answer.contains("Location:"))
    }

    @Test("location-clean: a clean Location is written as is")
    func cleanLocation() throws {
        let (answer, _) = try exchange(LoopbackReply(status: 302, html: "", finishes: true, location: "https://idp.example/end?a=b"))
        #expect(answer.hasPrefix("HTTP/1.1 302") && answer.contains("\r\nLocation: https://idp.example/end?a=b\r\n"), "\(answer)")
    }

    @Test("peer-credentials: a request from this process carries this user's id, read from the kernel's socket table")
    func peerIsThisUser() throws {
        let (_, peer) = try exchange(LoopbackReply(status: 200, html: "ok", finishes: true))
        #expect(peer == .user(getuid()))
        #expect(LoopbackRequest(method: "GET", path: "/", query: nil).peer() == .unknown, "a pasted address")
        #expect(PeerIdentity.user(getuid()).isTrusted && PeerIdentity.user(0).isTrusted)
        #expect(!PeerIdentity.user(65534).isTrusted || getuid() == 65534)
        #expect(!PeerIdentity.unverified.isTrusted)
        #expect(PeerIdentity.unknown.isTrusted, "no table: the other defences decide")
    }

    @Test("peer-credentials-table: the client's socket is found by its address and port pair, and its uid returned")
    func tableParsing() {
        let table = Array(
            """
              sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
               0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 1 1 0 0 0 0
               1: 0100007F:C350 0100007F:1F90 01 00000000:00000000 00:00000000 00000000 65534        0 2 1 0 0 0 0
               2: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000  1000        0 3 1 0 0 0 0
               3: 0200007F:C351 0100007F:1F90 01 00000000:00000000 00:00000000 00000000 65534        0 4 1 0 0 0 0

            """.utf8)
        let loopback = PeerCredentials.listenerAddress
        let client = PeerCredentials.Endpoint(address: loopback, port: 0xC350)
        #expect(PeerCredentials.identity(inTable: table, client: client, listenerPort: 0x1F90) == .user(65534))
        // A client bound to another loopback address (127.0.0.2) is looked up by that address.
        let other = PeerCredentials.Endpoint(address: UInt32(0x7F00_0002).bigEndian, port: 0xC351)
        #expect(PeerCredentials.identity(inTable: table, client: other, listenerPort: 0x1F90) == .user(65534))
        // Not in the table: unverified, never trusted.
        let missing = PeerCredentials.Endpoint(address: loopback, port: 0xC351)
        #expect(PeerCredentials.identity(inTable: table, client: missing, listenerPort: 0x1F90) == .unverified)
        #expect(PeerCredentials.identity(of: .init(client: client, listenerPort: 1), table: "/nonexistent") == .unknown)
        #expect(PeerCredentials.identity(of: .init(client: nil, listenerPort: 1)) == .unverified, "no getpeername: not trusted")
    }

    @Test(
        "port-holder: the uid of a LISTEN socket on 127.0.0.1, 0.0.0.0, :: or ::ffff:127.0.0.1 at the port; connections and other ports do not count"
    )
    func portHolder() throws {
        let ipv4 = Array(
            """
              sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
               0: 0100007F:203C 0100007F:C350 01 00000000:00000000 00:00000000 00000000  1000        0 1 1 0 0 0 0
               1: 0100007F:203D 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1001        0 2 1 0 0 0 0
               2: 00000000:203C 00000000:0000 0A 00000000:00000000 00:00000000 00000000 65534        0 3 1 0 0 0 0

            """.utf8)
        let locals = { (port: UInt16) in
            [PeerCredentials.listenerAddress, 0].map { PeerCredentials.Endpoint(address: $0, port: port).text }
        }
        #expect(PeerCredentials.listenerOwner(inTable: ipv4, locals: locals(0x203C)) == 65534)
        #expect(PeerCredentials.listenerOwner(inTable: ipv4, locals: locals(0x203D)) == 1001)
        #expect(PeerCredentials.listenerOwner(inTable: ipv4, locals: locals(0x203E)) == nil)
        // A dual-stack listener on [::]:8252, found through the IPv6 table.
        let directory = makeTemporaryDirectory("tcp6")
        let header =
            "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid\n"
        let line =
            "   0: 00000000000000000000000000000000:203C 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  4242\n"
        try FileSystem.atomicWrite(directory + "/tcp6", Array((header + line).utf8))
        try FileSystem.atomicWrite(directory + "/tcp", Array(header.utf8))
        #expect(PeerCredentials.listenerOwner(port: 0x203C, tables: (directory + "/tcp", directory + "/tcp6")) == 4242)
        #expect(PeerCredentials.listenerOwner(port: 0x203D, tables: (directory + "/tcp", directory + "/tcp6")) == nil)
    }

    @Test(
        "loopback-never-proxied: the no-proxy list always holds 127.0.0.0/8, ::1, localhost and its subdomains; no_proxy adds to it; * stays *"
    )
    func noProxyList() {
        let loopback = "127.0.0.0/8,::1,localhost,.localhost"
        #expect(CurlTransport.noProxy(environment: nil) == loopback)
        #expect(CurlTransport.noProxy(environment: "") == loopback)
        #expect(CurlTransport.noProxy(environment: " corp.example, .internal ,") == loopback + ",corp.example,.internal")
        #expect(CurlTransport.noProxy(environment: "a.example,*") == "*")
    }
}
