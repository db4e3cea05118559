import PingBase
import PingFlowCore
import PingHTTP
import PingOAuth
import PingPlatform

/// What `pingcli api` was asked to send.
package struct APIRequestOptions {
    package var profile: ProfileName
    package var method: HTTPRequest.Method
    /// As the user gave it: absolute, or relative to the profile's `api_base`.
    package var url: String
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]?
    package var include: Bool
    package var fail: Bool
    package var maxResponseBytes: Int
    package var minimumTTL: Double
    /// `--scope`, `--resource`, `--audience`: a token for just that (`TargetedTokenProvider`).
    package var target: TokenTarget? = nil

    package init(
        profile: ProfileName, method: HTTPRequest.Method, url: String, headers: [(name: String, value: String)], body: [UInt8]? = nil,
        include: Bool, fail: Bool, maxResponseBytes: Int, minimumTTL: Double, target: TokenTarget? = nil
    ) {
        self.profile = profile
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.include = include
        self.fail = fail
        self.maxResponseBytes = maxResponseBytes
        self.minimumTTL = minimumTTL
        self.target = target
    }
}

/// `pingcli api`: one authenticated HTTP request. The token goes only to the origin the user named: a
/// redirect is followed by pingcli itself (libcurl would carry custom headers such as `Authorization`
/// and `DPoP` to any host), with the credentials only while it stays on that origin, never over a
/// downgrade to http, and never to a loopback host from a remote one. A 401 is answered by one refresh
/// and one retry; a DPoP nonce challenge by one retry with the nonce (`DPoPTransport`).
package struct APIRequestFlow {
    package let options: APIRequestOptions
    package let context: SessionContext

    /// Redirects followed before giving up.
    package static let maximumRedirects = 5

    /// The user's headers that still go along after a redirect to another origin (the content's
    /// description, as in the Fetch standard's CORS-safelisted request headers); all others stay behind.
    package static let portableHeaders: Set<String> = ["accept", "accept-language", "content-language", "content-type"]

    /// Sends the request and writes the body to stdout; with --fail, a non-2xx status is an error (exit 6).
    package func run() throws(PingCLIError) {
        let provider = TokenProvider(profile: options.profile, context: context)
        /// The session's token, or the target's; `refused`: the token the API answered 401 to.
        func obtain(refused: AccessToken?) throws(PingCLIError) -> FreshTokens {
            guard let target = options.target else {
                return try provider.fresh(minimumTTL: options.minimumTTL, forceRefresh: refused != nil)
            }
            return try TargetedTokenProvider(base: provider, target: target).fresh(minimumTTL: options.minimumTTL, replacing: refused)
        }
        var fresh = try obtain(refused: nil)
        if let warning = fresh.warning { context.console.err("pingcli: warning: \(warning)") }
        let target = try APIURL.target(options.url, base: fresh.profile.apiBase)
        var refreshed = false
        while true {
            let (response, url) = try follow(target, tokens: fresh.tokens, clientTLS: fresh.profile.clientTLS)
            if response.status == 401, url.origin == target.origin, !refreshed {
                // The server no longer takes this token (revoked, expired early): refresh once and retry.
                refreshed = true
                context.console.err("pingcli: \(displaySafe(url.origin)) answered 401: refreshing the token and trying once more")
                fresh = try obtain(refused: fresh.tokens.accessToken)
                continue
            }
            return try report(response, url: url)
        }
    }

    /// The request and its redirects, with credentials only on the first origin: the token, its DPoP
    /// proof, and for a certificate-bound token (RFC 8705 §3) the profile's client certificate.
    private func follow(
        _ start: EndpointURL, tokens: TokenSet, clientTLS: ClientTLS
    ) throws(PingCLIError) -> (
        HTTPResponse, EndpointURL
    ) {
        let transports = context.transports
        var transportOptions = transports.options
        transportOptions.maxResponseBytes = options.maxResponseBytes
        let plain = transports.make(transportOptions)
        var credentialed = plain
        if CertificateBinding.thumbprint(ofAccessToken: tokens.accessToken.value) != nil, clientTLS.certificateFile != nil {
            // The certificate and key only: the profile's pins are the provider's keys, not the API's.
            transportOptions.clientTLS = ClientTLS(certificateFile: clientTLS.certificateFile, keyFile: clientTLS.keyFile)
            credentialed = transports.make(transportOptions)
        }
        let withToken = tokens.dpopKey.map { transports.signing(credentialed, key: $0) } ?? credentialed
        var url = start
        var method = options.method
        var body = options.body
        var credentials = true
        for _ in 0...Self.maximumRedirects {
            // On another origin only headers that describe the content go along: a header the user added
            // may be a credential too (an API key), and libcurl would forward every one of them.
            var headers = credentials ? options.headers : options.headers.filter { Self.portableHeaders.contains($0.name.lowercased()) }
            if credentials { headers.append(tokens.authorization) }
            let request = HTTPRequest(method: method, url: url.value, headers: headers, body: body)
            let response = try send(request, through: credentials ? withToken : plain, url: url)
            guard [301, 302, 303, 307, 308].contains(response.status), let location = response.headers["location"] else {
                return (response, url)
            }
            let next = try redirectTarget(location, status: response.status, from: url)
            if next.origin != start.origin && credentials {
                credentials = false
                context.console.err(
                    "pingcli: following a redirect to \(displaySafe(next.origin)) without the token (it was meant for \(displaySafe(start.origin)))"
                )
            }
            // RFC 9110 §15.4: 303 becomes GET, and so does a POST after 301/302 (as browsers and curl do).
            if response.status == 303 && method != .head || (response.status <= 302 && method == .post) {
                method = .get
                body = nil
            }
            url = next
        }
        throw .failure(
            "more than \(Self.maximumRedirects) redirects from \(displaySafe(start.origin)): not followed further",
            rule: .apiRedirectLimit)
    }

    /// One request of `follow`, its transport failure worded for the API.
    private func send(
        _ request: HTTPRequest, through transport: any HTTPTransport, url: EndpointURL
    ) throws(PingCLIError)
        -> HTTPResponse
    {
        do {
            return try transport.send(request)
        } catch {
            if case .responseTooLarge(let limit) = error {
                throw .failure(
                    "the response from \(displaySafe(url.origin)) is larger than \(limit) bytes: raise --max-bytes if you expect that much",
                    rule: .apiResponseLimit)
            }
            throw error.asCLIError(doing: "the request to \(displaySafe(url.origin))", endpoint: "API", url: url.value)
        }
    }

    /// Where a redirect from `url` leads, if pingcli follows it there: through the API URL gate, never from
    /// https to http, never from elsewhere to this machine.
    private func redirectTarget(_ location: String, status: Int, from url: EndpointURL) throws(PingCLIError) -> EndpointURL {
        let next: EndpointURL
        do {
            next = try APIURL.check(APIURL.redirectTarget(location, from: url))
        } catch {
            throw .failure(
                "\(displaySafe(url.origin)) redirected (HTTP \(status)) to an address pingcli does not follow: \(error.message)",
                rule: .apiURLGate)
        }
        if url.scheme == "https" && next.scheme == "http" {
            throw .failure(
                "\(displaySafe(url.origin)) redirected from https to plain http: not followed", rule: .schemeDowngradeRedirect)
        }
        if next.isLoopback && !url.isLoopback {
            throw .failure(
                "\(displaySafe(url.origin)) redirected to this machine (a loopback address): not followed", rule: .ssrfControl)
        }
        return next
    }

    /// The body on stdout exactly as received; status and headers on stderr with --include; a non-2xx
    /// status named on stderr, and exit 6 with --fail.
    private func report(_ response: HTTPResponse, url: EndpointURL) throws(PingCLIError) {
        let console = context.console
        if options.include {
            console.err("HTTP \(response.status)")
            for (name, value) in response.headers.sorted(by: { $0.key < $1.key }) {
                console.err("\(displaySafe(name, limit: 100)): \(displaySafe(value, limit: 2000))")
            }
        }
        console.outRaw(response.body)
        guard !(200..<300).contains(response.status) else { return }
        if options.fail {
            throw PingCLIError(
                .httpError, "\(displaySafe(url.origin)) answered HTTP \(response.status) (--fail makes that exit 6)", rule: .apiFail)
        }
        if !options.include { console.err("pingcli: \(displaySafe(url.origin)) answered HTTP \(response.status)") }
    }

    package init(options: APIRequestOptions, context: SessionContext) {
        self.options = options
        self.context = context
    }
}
