import CFront

/// The part of a profile's status summary (`StatusSummaryFile`, version 3) a cache hit needs: what the
/// full binary found when it wrote the cache and read it back (the access token, its expiry) and the exact
/// files that finding holds for (the BLAKE2b-256 of `profile.json` and of `tokens.enc`, the generation).
struct FrontSummary {
    static let header: [UInt8] = [0x50, 0x43, 0x4C, 0x53, 3, 0, 0, 0]  // "PCLS", version 3

    var profileDigest: [UInt8]
    var cacheDigest: [UInt8]
    var generation: UInt64
    var token: [UInt8]
    /// nil: the provider gave no lifetime (the token is fresh until a request is refused).
    var expiresAt: Double?

    /// The summary in `sealed`, opened under `key` and bound to `profile`'s name; nil when it is not one
    /// of this version, does not open, is not signed in or holds no access token.
    static func open(_ sealed: [UInt8], key: [UInt8], profile: [UInt8]) -> FrontSummary? {
        let start = header.count + FrontSodium.nonceLength
        guard sealed.count > start + FrontSodium.tagLength, Array(sealed[0..<header.count]) == header,
            var body = FrontSodium.decrypt(
                sealed, nonceAt: header.count, associatedData: header + [0] + Array("profile=".utf8) + profile, key: key)
        else { return nil }
        defer { wipe(&body) }
        return parse(body)
    }

    /// The digests, the generation, the token (present), then the line's flags and expiry.
    private static func parse(_ body: [UInt8]) -> FrontSummary? {
        guard body.count >= 77, body[72] == 1 else { return nil }
        let count = Int(Bytes.number(body, at: 73, width: 4))
        guard count > 0, count <= 64 * 1024, body.count >= 77 + count + 9 else { return nil }
        let flags = body[77 + count]
        guard flags & 0xF0 == 0, flags & 1 != 0 else { return nil }
        let token = Array(body[77..<(77 + count)])
        guard isB64Token(token) else { return nil }
        let expiry = Double(bitPattern: Bytes.number(body, at: 78 + count, width: 8))
        return FrontSummary(
            profileDigest: Array(body[0..<32]), cacheDigest: Array(body[32..<64]), generation: Bytes.number(body, at: 64, width: 8),
            token: token, expiresAt: flags & 8 != 0 ? expiry : nil)
    }

    /// Whether these are the files the summary was made from, and the cache is not older than the
    /// generation recorded for the profile (a restored backup is the full binary's to refuse).
    func vouchesFor(profile: [UInt8], cache: [UInt8], recorded: UInt64) -> Bool {
        // The cache's own header: format 5, a token set, the summary's generation.
        guard cache.count >= 16, Array(cache[0..<8]) == [0x50, 0x43, 0x4C, 0x49, 5, 0, 0, 0],
            Bytes.number(cache, at: 8, width: 8) == generation, generation >= recorded
        else { return false }
        return FrontSodium.same(FrontSodium.digest(profile), profileDigest) && FrontSodium.same(FrontSodium.digest(cache), cacheDigest)
    }

    /// `TokenSet.isFresh`: no expiry, or more than `minimumTTL` seconds left.
    func isFresh(now: Double, minimumTTL: Double) -> Bool {
        guard let expiresAt else { return true }
        return expiresAt - now > minimumTTL
    }

    /// RFC 6750 §2.1's b64token, the access token's gate (`AccessToken.matchesGrammar`).
    static func isB64Token(_ bytes: [UInt8]) -> Bool {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            let letter = (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            let digit = byte >= 0x30 && byte <= 0x39
            let symbol = byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E || byte == 0x2B || byte == 0x2F
            guard letter || digit || symbol else { break }
            index += 1
        }
        guard index > 0 else { return false }
        while index < bytes.count && bytes[index] == 0x3D { index += 1 }
        return index == bytes.count
    }
}
