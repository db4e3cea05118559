import PingBase

/// Where a PingAM / PingOne Advanced Identity Cloud realm's REST endpoints are, derived from the realm's
/// OAuth issuer: `https://T/am/oauth2/realms/root/realms/alpha`, its DNS-style alias
/// `https://T/am/oauth2/alpha`, or the root realm `https://T/am/oauth2`. AM's own base is everything
/// before `/oauth2` (usually `/am`, sometimes `/openam`); the journey endpoints hang off `{base}/json`.
public struct AMRealm: Sendable, Equatable {
    /// AM's deployment base, e.g. `https://T/am`, without a trailing slash.
    public let base: String
    /// The realms below root, outermost first: `[]` for root, `["alpha"]` for `/realms/root/realms/alpha`.
    public let realms: [String]
    /// `{base}/json/realms/root/realms/alpha/authenticate`, or what `--authenticate-endpoint` named.
    public let authenticateEndpoint: EndpointURL

    /// The realm of `issuer`, its authenticate endpoint derived unless `authenticateEndpoint` is given.
    /// Fails when the issuer's path has no `oauth2` segment: that provider is not AM (or not its issuer).
    public init(issuer: EndpointURL, authenticateEndpoint: EndpointURL? = nil) throws(AMRealmError) {
        let segments = issuer.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard let oauth2 = segments.lastIndex(of: "oauth2") else { throw .notAM }
        var rest = Array(segments[(oauth2 + 1)...])
        var realms: [String] = []
        if rest.first == "realms" {
            // `realms/root/realms/alpha/…`: pairs of `realms` and a name, the first name root.
            guard rest.count % 2 == 0 else { throw .realmPath }
            while !rest.isEmpty {
                guard rest[0] == "realms" else { throw .realmPath }
                realms.append(rest[1])
                rest.removeFirst(2)
            }
            if realms.first == "root" { realms.removeFirst() }
        } else {
            realms = rest  // the alias form: `/oauth2/alpha`
        }
        guard realms.allSatisfy(Self.isRealmName) else { throw .realmPath }
        let prefix = segments[..<oauth2].map { "/" + $0 }.joined()
        self.base = issuer.origin + prefix
        self.realms = realms
        if let authenticateEndpoint {
            self.authenticateEndpoint = authenticateEndpoint
        } else {
            let derived = base + "/json/" + Self.realmPath(realms) + "/authenticate"
            guard let url = try? EndpointPolicy.check(derived, issuer: issuer) else { throw .realmPath }
            self.authenticateEndpoint = url
        }
    }

    /// A realm name as a path segment: unreserved characters and percent escapes, not `.` or `..`.
    package static func isRealmName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 128, name != ".", name != ".." else { return false }
        return name.utf8.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || "-._~%".utf8.contains($0) }
    }

    /// `realms/root/realms/alpha`: the realm as AM's REST paths name it.
    package static func realmPath(_ realms: [String]) -> String {
        (["root"] + realms).map { "realms/" + $0 }.joined(separator: "/")
    }

    /// `realms/root/realms/alpha`.
    public var realmPath: String { Self.realmPath(realms) }

    /// `/alpha` (or `/` for root), as AM's success response names the realm.
    public var realmName: String { "/" + realms.joined(separator: "/") }

    /// `GET {base}/json/serverinfo/*`: the server's settings, among them the session cookie's name.
    public var serverInfoURL: String { base + "/json/serverinfo/*" }

    /// `POST {base}/json/realms/…/sessions?_action=logout`: ends the session named in the cookie header.
    public var sessionLogoutURL: String { base + "/json/" + realmPath + "/sessions?_action=logout" }

    /// `POST` here with the session in the cookie-named header: what AM knows of that session (its times).
    public var sessionInfoURL: String { base + "/json/" + realmPath + "/sessions?_action=getSessionInfo" }

    /// The scheme, host and port every request carrying the session may go to.
    public var origin: String { (try? EndpointURL(base))?.origin ?? base }

    /// The first request of the tree `tree`: `authIndexType=service&authIndexValue=TREE`, the name
    /// percent-encoded (tree names may hold spaces).
    public func startURL(tree: JourneyTree) -> String {
        authenticateEndpoint.value + separator + "authIndexType=service&authIndexValue=" + FormEncoding.escape(tree.name)
    }

    /// Continuing a suspended journey: `?suspendedId=ID` (the link AM sent by e-mail carries the same).
    public func resumeURL(suspendedID: SuspendedID) -> String {
        authenticateEndpoint.value + separator + "suspendedId=" + FormEncoding.escape(suspendedID.value)
    }

    /// The later steps of a journey go to the URL it started at.
    private var separator: String { authenticateEndpoint.query == nil ? "?" : "&" }
}

/// Why no AM realm could be derived from an issuer; worded where the flows word failures
/// (`PingFlowCore/OAuthAdvice.swift`).
public enum AMRealmError: Error, Sendable, Equatable {
    /// No `oauth2` segment in the issuer's path: not a PingAM / Advanced Identity Cloud issuer.
    case notAM
    /// `oauth2` followed by something that is not a realm path.
    case realmPath

    public var rule: Rule { self == .notAM ? .journeyNotAm : .journeyRealmPath }
}

/// The name of an authentication tree (`--journey`): any printable text, spaces allowed; never a control
/// character, and not longer than AM's own limit on names is likely to be.
public struct JourneyTree: Sendable, Equatable {
    public let name: String

    public init?(_ name: String) {
        guard !name.isEmpty, name.utf8.count <= 256, !name.unicodeScalars.contains(where: isTerminalActive),
            name.trimmingWhitespace == name
        else { return nil }
        self.name = name
    }
}

/// A suspended journey's id (`--resume ID`, or the `suspendedId` of the link's URL).
public struct SuspendedID: Sendable, Equatable {
    public let value: String

    /// The id itself, or the link AM sent (its `suspendedId` query parameter).
    public init?(_ text: String) {
        var candidate = text.trimmingWhitespace
        if let url = try? EndpointURL(candidate) {
            guard let query = url.query, let pairs = FormEncoding.decode(query),
                let found = pairs.first(where: { $0.name == "suspendedId" })
            else { return nil }
            candidate = found.value
        }
        let allowed = candidate.utf8.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || "-._~".utf8.contains($0) }
        guard !candidate.isEmpty, candidate.utf8.count <= 512, allowed else { return nil }
        value = candidate
    }
}
