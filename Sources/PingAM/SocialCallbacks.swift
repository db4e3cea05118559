import PingBase

/// One entry of a `SelectIdPCallback`'s `providers`: the name of AM's social identity provider
/// configuration (what the answer carries) and the label a login page shows
/// (`uiConfig.buttonDisplayName`); `localAuthentication` (no `uiConfig`) is "sign in here instead"
/// (`reference/am-social.md` §1).
public struct IdentityProviderChoice: Sendable, Equatable {
    public var name: String
    public var displayName: String

    /// The entry the Select Identity Provider node adds when *Include local authentication* is on.
    public static let localAuthentication = "localAuthentication"
    public var isLocal: Bool { name == Self.localAuthentication }

    /// The `providers` output: each entry an object with a `provider` name (a short printable text);
    /// anything else is not a menu pingcli can offer.
    package static func list(_ value: JSONValue?) throws(JourneyError) -> [IdentityProviderChoice] {
        guard let list = value?.arrayValue, !list.isEmpty else { throw .malformed("a SelectIdPCallback lists no providers") }
        guard list.count <= JourneyResponse.maximumEntries else {
            throw .malformed("a SelectIdPCallback lists more than \(JourneyResponse.maximumEntries) providers")
        }
        var choices: [IdentityProviderChoice] = []
        for element in list {
            guard let object = element.objectValue, let name = object["provider"]?.stringValue, !name.isEmpty, name.utf8.count <= 256,
                name.utf8.allSatisfy({ (0x20..<0x7F).contains($0) })
            else { throw .malformed("a SelectIdPCallback has a provider without a printable name") }
            let label = object["uiConfig"]?.objectValue?["buttonDisplayName"]?.stringValue.map {
                displaySafe($0.trimmingWhitespace, limit: 80)
            }
            choices.append(IdentityProviderChoice(name: name, displayName: label.flatMap { $0.isEmpty ? nil : $0 } ?? name))
        }
        return choices
    }
}

/// Where a loopback listener must wait for the browser: the `redirect_uri` AM's social provider
/// configuration names (its *Redirect URL*), which pingcli cannot choose (`reference/am-social.md` §5).
public struct LoopbackRedirectAddress: Sendable, Equatable {
    /// `127.0.0.1`, `[::1]` or `localhost`, as AM names it.
    public var host: String
    public var port: UInt16
    /// The path the answer must arrive on (`/` when the URI has none), still percent-encoded.
    public var path: String

    /// Whether the listener binds the IPv6 loopback address (`[::1]`); `localhost` and `127.0.0.1` bind
    /// 127.0.0.1.
    public var isIPv6: Bool { host == "[::1]" }
    public var display: String { "http://\(host):\(port)\(path)" }
}

/// A `RedirectCallback` (the Social Provider Handler's BROWSER client type), through its gate: the
/// browser is sent to `url`, and comes back to `listener` with AM's `state`.
public struct SocialRedirect: Sendable, Equatable {
    /// `redirectUrl` as AM sent it: the authorization request at the external provider.
    public var url: EndpointURL
    /// The `state` in that request (AM's; the answer must carry the same).
    public var state: String
    public var listener: LoopbackRedirectAddress

    /// Why a redirect cannot be followed from a terminal.
    public enum Refusal: Error, Sendable, Equatable {
        /// `redirectUrl` is not an https URL (or http on a loopback host).
        case notAURL(String)
        /// `redirectMethod` other than GET: an auto-posting form a terminal cannot send through a browser.
        case method(String)
        /// No single `redirect_uri`, or no single `state`, in `redirectUrl`.
        case missing(String)
        /// The `redirect_uri` is not `http://` on a loopback host with a port: where the browser lands is
        /// not somewhere pingcli can listen.
        case notLoopback(String)

        public var message: String {
            let fix =
                "the AM administrator must set the social provider configuration's Redirect URL to a loopback address with a fixed port, such as http://127.0.0.1:8765/callback (docs/ping-setup.md)"
            switch self {
            case .notAURL(let reason): return "the journey's redirect to the identity provider is not a usable URL (\(reason))"
            case .method(let method):
                return
                    "the journey asks to \(displaySafe(method, limit: 10)) a form to the identity provider, which pingcli cannot do (only GET)"
            case .missing(let name): return "the journey's redirect to the identity provider has no single \(name) parameter: \(fix)"
            case .notLoopback(let uri):
                return
                    "the identity provider would send the browser back to \(displaySafe(uri, limit: 120)), where pingcli cannot listen: \(fix)"
            }
        }
    }

    /// The gate: `redirectUrl` https (or http on loopback), method GET, exactly one `state` and one
    /// `redirect_uri`, and that URI `http` on `127.0.0.1`, `[::1]` or `localhost` with an explicit port.
    public static func check(url text: String, method: String) throws(Refusal) -> SocialRedirect {
        guard method.isEmpty || method.uppercased() == "GET" else { throw .method(method) }
        let url: EndpointURL
        do { url = try EndpointURL(text) } catch { throw .notAURL(error.message) }
        guard url.scheme == "https" || url.isLoopback else { throw .notAURL("plain http to a host that is not this machine") }
        guard let pairs = FormEncoding.decode(url.query ?? "") else { throw .notAURL("its query is malformed") }
        func single(_ name: String) throws(Refusal) -> String {
            let values = pairs.filter { $0.name == name }.map(\.value)
            guard values.count == 1, !values[0].isEmpty else { throw .missing(name) }
            return values[0]
        }
        let state = try single("state")
        let redirectURI = try single("redirect_uri")
        return SocialRedirect(url: url, state: state, listener: try loopback(redirectURI))
    }

    /// `http://127.0.0.1:PORT/path`, `http://[::1]:PORT/path` or `http://localhost:PORT/path`.
    private static func loopback(_ uri: String) throws(Refusal) -> LoopbackRedirectAddress {
        guard let parsed = try? EndpointURL(uri), parsed.scheme == "http", let port = parsed.port, (1...65535).contains(port),
            ["127.0.0.1", "[::1]", "localhost"].contains(parsed.host)
        else { throw .notLoopback(uri) }
        return LoopbackRedirectAddress(host: parsed.host, port: UInt16(port), path: parsed.path.isEmpty ? "/" : parsed.path)
    }
}

/// An `IdPCallback` (the NATIVE client type): what it names, for the refusal.
public struct NativeIdPRequest: Sendable, Equatable {
    public var provider: String
}
