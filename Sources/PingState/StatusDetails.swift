import PingBase
import PingOAuth

/// What `status --json` says about a profile beyond its table line (`StatusSummary`), as the full read
/// of `profile.json` and the token cache finds it: the settings (git hosts, the endpoints given at login,
/// discovery, a journey's tree and OTP account) and, with a session, the ID token's presence and step-up
/// claims, the granted scopes, the access token's audience and a journey's AM session. Kept in the status
/// summary and the status index beside the line, so that `status --all --json` reads no profile fully
/// while they vouch for its files. Two files it does not cover, the refresh record and the narrower
/// tokens, are looked for apart (their absence is checked on each run).
public struct StatusDetails: Sendable, Equatable {
    /// The git servers `git-credential` answers for (`host[:port][/path]`).
    public var gitHosts: [String]
    /// The endpoints `login` was given rather than discovered: name, URL, name, URL, … by name.
    public var endpointOverrides: [String]
    public var discovery: Bool
    public var journey: String?
    public var otpAccount: String?
    /// The identity provider the tree's Select Identity Provider step picks (`login --idp`).
    public var idp: String?
    /// nil without a session, and for a machine (client credentials).
    public var idToken: Bool?
    public var acr: String?
    public var authTime: Double?
    /// The token response's `scope`, else those asked for; nil without a session.
    public var scopes: [String]?
    /// The access token's `aud` when it is a JWT that names one.
    public var audience: [String]?
    /// Whether the cache holds a journey's AM session; nil without a session or for other profiles.
    public var amSession: Bool?
    /// When AM ends that session at the latest, when AM said.
    public var amSessionEnds: Double?

    /// The settings of `profile.json`, without a session.
    public init(profile: Profile) {
        gitHosts = (profile.gitHosts ?? []).map(\.description)
        endpointOverrides = EndpointOverrides(saved: profile).urls.sorted { $0.key.rawValue < $1.key.rawValue }.flatMap {
            [$0.key.rawValue, $0.value.value]
        }
        discovery = profile.discovery != false
        (journey, otpAccount, idp) = (profile.journey, profile.otp, profile.idp)
    }

    /// The settings and what the session adds (`claims`: the ID token's, when it decodes). `audience`
    /// false leaves the access token undecoded (a table shows no audience).
    public init(profile: Profile, tokens: TokenSet, claims: IDTokenClaims?, audience: Bool = true) {
        self.init(profile: profile)
        (acr, authTime) = (claims?.acr, claims?.authTime)
        if profile.grantType != .clientCredentials { idToken = tokens.idToken != nil }
        scopes = tokens.scope.map { $0.split(separator: " ").map(String.init) } ?? profile.scopes
        if profile.journey != nil {
            amSession = tokens.amSession != nil
            amSessionEnds = tokens.amSession == nil ? nil : tokens.amSessionEnds
        }
        if audience { self.audience = Self.audience(ofAccessToken: tokens.accessToken.value) }
    }

    /// The `aud` of an access token that is a JWT (a string or an array), nil for an opaque token.
    public static func audience(ofAccessToken token: String) -> [String]? {
        guard let payload = try? CompactJWS.decode(token).payload, let claims = JSONValue.parseObject(payload) else { return nil }
        switch claims["aud"] {
        case .string(let one): return [one]
        case .array(let many): return many.compactMap(\.stringValue)
        default: return nil
        }
    }
}

extension StatusSummaryFile {
    /// The details after the line's fields: a presence byte, then a byte of flags (1 an ID token is
    /// known, 2 there is one, 4 an AM session is known, 8 there is one, 16 discovery, 32 an auth time),
    /// the auth time (an IEEE 754 double, big-endian), acr, journey, OTP account and identity provider as optional strings,
    /// scopes and audience as optional lists, git hosts and endpoint overrides as lists (a list: a
    /// 4-byte count, then its strings, each a presence byte, a 4-byte length and UTF-8).
    package static func appendDetails(_ details: StatusDetails?, to body: inout [UInt8]) {
        guard let details else { return body.append(0) }
        body.append(1)
        var flags = details.idToken.map { $0 ? 3 : 1 } ?? 0
        flags |= details.amSession.map { $0 ? 12 : 4 } ?? 0
        flags |= (details.discovery ? 16 : 0) | (details.authTime == nil ? 0 : 32) | (details.amSessionEnds == nil ? 0 : 64)
        body.append(UInt8(flags))
        appendNumber((details.authTime ?? 0).bitPattern, width: 8, to: &body)
        appendNumber((details.amSessionEnds ?? 0).bitPattern, width: 8, to: &body)
        for text in [details.acr, details.journey, details.otpAccount, details.idp] { appendText(text, to: &body) }
        for list in [details.scopes, details.audience] {
            body.append(list == nil ? 0 : 1)
            if let list { appendList(list, to: &body) }
        }
        appendList(details.gitHosts, to: &body)
        appendList(details.endpointOverrides, to: &body)
    }

    /// What `appendDetails` wrote (`.some(nil)`: none were kept); nil when malformed.
    package static func details(_ reader: inout RecordReader) -> StatusDetails?? {
        guard let present = reader.integer(1), present <= 1 else { return nil }
        if present == 0 { return .some(nil) }
        guard let flags = reader.integer(1), flags & 0x80 == 0, let authTime = reader.integer(8), let ends = reader.integer(8),
            let acr = optionalText(&reader),
            let journey = optionalText(&reader), let otpAccount = optionalText(&reader), let idp = optionalText(&reader),
            let scopes = optionalList(&reader),
            let audience = optionalList(&reader), let gitHosts = list(&reader), let overrides = list(&reader),
            overrides.count % 2 == 0
        else { return nil }
        var details = StatusDetails(
            gitHosts: gitHosts, endpointOverrides: overrides, discovery: flags & 16 != 0, journey: journey, otpAccount: otpAccount)
        details.idp = idp
        details.idToken = flags & 1 != 0 ? flags & 2 != 0 : nil
        details.amSession = flags & 4 != 0 ? flags & 8 != 0 : nil
        (details.acr, details.authTime) = (acr, flags & 32 != 0 ? Double(bitPattern: authTime) : nil)
        details.amSessionEnds = flags & 64 != 0 ? Double(bitPattern: ends) : nil
        (details.scopes, details.audience) = (scopes, audience)
        return .some(details)
    }

    /// Steps over what `appendDetails` wrote without making its strings (a table shows none of them);
    /// false when malformed.
    package static func skipDetails(_ reader: inout RecordReader) -> Bool {
        func skipText(required: Bool) -> Bool {
            guard let present = reader.integer(1), present <= 1, present == 1 || !required else { return false }
            guard present == 1 else { return true }
            guard let count = reader.integer(4), reader.take(Int(count)) != nil else { return false }
            return true
        }
        func skipList() -> Bool {
            guard let count = reader.integer(4), count <= 4096 else { return false }
            return (0..<count).allSatisfy { _ in skipText(required: true) }
        }
        guard let present = reader.integer(1), present <= 1 else { return false }
        if present == 0 { return true }
        guard let flags = reader.integer(1), flags & 0x80 == 0, reader.integer(8) != nil, reader.integer(8) != nil,
            skipText(required: false), skipText(required: false), skipText(required: false), skipText(required: false)
        else { return false }
        for _ in 0..<2 {
            guard let listed = reader.integer(1), listed <= 1, listed == 0 || skipList() else { return false }
        }
        return skipList() && skipList()
    }

    /// A presence byte, then a 4-byte length and UTF-8.
    package static func appendText(_ text: String?, to body: inout [UInt8]) {
        guard let text else { return body.append(0) }
        body.append(1)
        appendNumber(UInt64(text.utf8.count), width: 4, to: &body)
        body += text.utf8
    }

    private static func appendList(_ list: [String], to body: inout [UInt8]) {
        appendNumber(UInt64(list.count), width: 4, to: &body)
        for text in list { appendText(text, to: &body) }
    }

    private static func list(_ reader: inout RecordReader) -> [String]? {
        guard let count = reader.integer(4), count <= 4096 else { return nil }
        var list: [String] = []
        for _ in 0..<count {
            guard let text = text(&reader) else { return nil }
            list.append(text)
        }
        return list
    }

    private static func optionalList(_ reader: inout RecordReader) -> [String]?? {
        guard let present = reader.integer(1), present <= 1 else { return nil }
        return present == 0 ? .some(nil) : list(&reader).map { .some($0) }
    }
}

extension StatusDetails {
    /// The fields read back from a summary or an index entry.
    fileprivate init(gitHosts: [String], endpointOverrides: [String], discovery: Bool, journey: String?, otpAccount: String?) {
        (self.gitHosts, self.endpointOverrides, self.discovery, self.journey, self.otpAccount) = (
            gitHosts, endpointOverrides, discovery, journey, otpAccount
        )
    }
}
