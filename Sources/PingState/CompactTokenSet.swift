import PingBase
import PingCrypto
import PingOAuth

/// The plaintext of a format 3 token cache: the token set as tagged, length-prefixed fields, read
/// without `JSONDecoder` (whose Codable look-ups were the largest cost of `token --raw` after process
/// start, docs/performance.md).
///
/// ```
/// field   1 byte tag, 4 bytes length (big-endian), then that many bytes
/// tags    1 access_token, 2 token_type, 3 expires_at, 4 refresh_token, 5 id_token, 6 scope,
///         7 obtained_at, 8 client_secret, 9 dpop_key (the algorithm's name, NUL, the private key),
///         10 am_session (a journey's AM session, `tokenId`), 11 session_id (16 random bytes drawn at
///         login, binding the narrower tokens to the session), 12 am_session_ends (when AM ends the AM
///         session at the latest); each at most once, in increasing order
/// values  UTF-8 text; expires_at, obtained_at and am_session_ends the 8 bytes of an IEEE 754 double,
///         big-endian
/// ```
///
/// The file is authenticated before this is read, but every value still goes through the gate it
/// entered by (`AccessToken`, `RefreshToken`, `IDToken`, `ClientSecret`, plausible times): a key that
/// leaked must not become a way to smuggle an unchecked token past them. An unknown tag, a field out
/// of order or given twice, a missing required field or a trailing byte make the whole set unreadable.
package enum CompactTokenSet {
    package enum Tag: UInt8 {
        case accessToken = 1
        case tokenType, expiresAt, refreshToken, idToken, scope, obtainedAt, clientSecret, dpopKey, amSession, sessionID, amSessionEnds
    }

    package static func encode(_ tokens: TokenSet) -> [UInt8] {
        // Sized once, so that no copy of a secret is left behind in a buffer outgrown on the way.
        let texts = [tokens.accessToken.value, tokens.tokenType, tokens.refreshToken?.value, tokens.idToken?.value, tokens.scope]
        let capacity =
            texts.reduce(0) { $0 + ($1?.utf8.count ?? 0) } + (tokens.clientSecret?.value.utf8.count ?? 0) + 8 * 5 + 16
            + (tokens.dpopKey.map { $0.cacheBytes.count + 5 } ?? 0) + (tokens.amSession.map { $0.value.utf8.count + 5 } ?? 0) + 21 + 13
        var bytes: [UInt8] = []
        bytes.reserveCapacity(capacity)
        func field(_ tag: Tag, _ value: [UInt8]) {
            let count = UInt32(value.count)
            bytes += [tag.rawValue, UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)]
            bytes += value
        }
        func time(_ value: Double) -> [UInt8] { (0..<8).map { UInt8(value.bitPattern >> (56 - 8 * $0) & 0xFF) } }
        field(.accessToken, Array(tokens.accessToken.value.utf8))
        field(.tokenType, Array(tokens.tokenType.utf8))
        if let expiresAt = tokens.expiresAt { field(.expiresAt, time(expiresAt)) }
        if let refreshToken = tokens.refreshToken { field(.refreshToken, Array(refreshToken.value.utf8)) }
        if let idToken = tokens.idToken { field(.idToken, Array(idToken.value.utf8)) }
        if let scope = tokens.scope { field(.scope, Array(scope.utf8)) }
        field(.obtainedAt, time(tokens.obtainedAt))
        if let clientSecret = tokens.clientSecret { field(.clientSecret, Array(clientSecret.value.utf8)) }
        if let dpopKey = tokens.dpopKey {
            var keyBytes = dpopKey.cacheBytes
            field(.dpopKey, keyBytes)
            Sodium.wipe(&keyBytes)
        }
        if let amSession = tokens.amSession { field(.amSession, Array(amSession.value.utf8)) }
        if let sessionID = tokens.sessionID { field(.sessionID, sessionID) }
        if let ends = tokens.amSessionEnds { field(.amSessionEnds, time(ends)) }
        return bytes
    }

    /// The token set, or nil when the bytes are not one (see the type's rules).
    package static func decode(_ bytes: [UInt8]) -> TokenSet? {
        // Where each field's bytes start and end (-1: absent). `[Int]`, whose metadata the standard library
        // has ready, rather than `[ArraySlice<UInt8>?]`, which `token --raw` paid to instantiate.
        var bounds = [Int](repeating: -1, count: 26)
        func field(_ tag: Tag) -> ArraySlice<UInt8>? {
            let slot = 2 * Int(tag.rawValue)
            return bounds[slot] < 0 ? nil : bytes[bounds[slot]..<bounds[slot + 1]]
        }
        var index = 0
        var previous: UInt8 = 0
        while index < bytes.count {
            guard bytes.count - index >= 5, let tag = Tag(rawValue: bytes[index]), tag.rawValue > previous else { return nil }
            let count = bytes[(index + 1)...(index + 4)].reduce(0) { $0 << 8 | Int($1) }
            index += 5
            guard bytes.count - index >= count else { return nil }
            bounds[2 * Int(tag.rawValue)] = index
            bounds[2 * Int(tag.rawValue) + 1] = index + count
            index += count
            previous = tag.rawValue
        }
        func text(_ tag: Tag) -> String?? {
            guard let value = field(tag) else { return .some(nil) }
            return validUTF8String(value).map { .some($0) }
        }
        func time(_ tag: Tag) -> Double?? {
            guard let value = field(tag) else { return .some(nil) }
            guard value.count == 8 else { return nil }
            return Double(bitPattern: value.reduce(0) { $0 << 8 | UInt64($1) })
        }
        func checked<Value: CheckedString>(_ tag: Tag, as type: Value.Type) -> Value?? {
            guard let value = text(tag) else { return nil }
            guard let value else { return .some(nil) }
            return (try? Value(checking: value)).map { .some($0) }
        }
        guard case let accessToken?? = checked(.accessToken, as: AccessToken.self), case let tokenType?? = text(.tokenType),
            case let obtainedAt?? = time(.obtainedAt), case let expiresAt? = time(.expiresAt),
            case let refreshToken? = checked(.refreshToken, as: RefreshToken.self), case let idToken? = checked(.idToken, as: IDToken.self),
            case let scope? = text(.scope), case let clientSecret? = checked(.clientSecret, as: ClientSecret.self),
            case let amSession? = checked(.amSession, as: SSOToken.self), case let amSessionEnds? = time(.amSessionEnds)
        else { return nil }
        var dpopKey: DPoPKey? = nil
        if let keyBytes = field(.dpopKey) {
            guard let key = DPoPKey(cacheBytes: keyBytes) else { return nil }
            dpopKey = key
        }
        var tokens = TokenSet(
            accessToken: accessToken, tokenType: tokenType, expiresAt: expiresAt, refreshToken: refreshToken, idToken: idToken,
            scope: scope, obtainedAt: obtainedAt, clientSecret: clientSecret, dpopKey: dpopKey)
        tokens.amSession = amSession
        tokens.amSessionEnds = amSessionEnds.flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
        if let sessionID = field(.sessionID) {
            guard sessionID.count == 16 else { return nil }
            tokens.sessionID = Array(sessionID)
        }
        return tokens.hasPlausibleTimes ? tokens : nil
    }
}
