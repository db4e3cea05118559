import CCurl
import Testing

@testable import PingHTTP
@testable import PingPlatform

@Suite("libcurl options: a refused one stops the request")
struct CurlOptionTests {
    @Test(
        "curl-option-refused: an option libcurl refuses (here a protocol list it does not know) is an error naming the option, and the request is not sent"
    )
    func refused() throws {
        try #require(pingcli_curl_available() == 1, "libcurl4 is installed by make deps")
        let handle = try #require(pingcli_curl_easy_init())
        defer { pingcli_curl_easy_cleanup(handle) }
        let code = pingcli_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "no-such-protocol")
        #expect(code != CURLE_OK, "libcurl reports the refusal")
        #expect(throws: TransportError.self) { try CurlTransport.require(code, "CURLOPT_PROTOCOLS_STR") }
        do throws(TransportError) {
            try CurlTransport.require(code, "CURLOPT_PROTOCOLS_STR")
        } catch {
            let message = error.asCLIError(doing: "discovery").message
            #expect(message.hasPrefix("discovery failed: libcurl refused CURLOPT_PROTOCOLS_STR ("), "\(message)")
            #expect(message.hasSuffix("so the request was not sent: install a current libcurl (apt-get install libcurl4)"))
        }
        #expect(throws: Never.self) { try CurlTransport.require(CURLE_OK, "CURLOPT_URL") }
    }
}
