import CFront

/// A cache hit, read as the full binary reads it (`PingCLI.withCurrentProfile`, `TokenProvider.cached`,
/// `TokenStore.readProfile` / `readTokens`, `KeySource`, `GenerationRecord`), and vouched for by the
/// profile's status summary instead of parsing `profile.json` and decrypting the cache a second way.
enum FrontAnswer {
    /// `--min-ttl`'s default (`MinimumTTLOption.defaultSeconds`): a token that lives longer is fresh.
    static let minimumTTL = 30.0

    /// Prints the token and returns the exit status (1, with the full binary's line, when standard output
    /// could not be written); nil (nothing printed) when the full binary must answer.
    static func answered(_ request: FrontRequest) -> Int32? {
        guard var line = tokenLine(request) else { return nil }
        let failure = Bytes.writeAll(1, line)
        wipe(&line)
        guard failure == 0 else {
            Bytes.writeFailedLine(failure)
            return 1
        }
        return 0
    }

    /// The access token a plain cache hit hands out, and a newline, in a new array (the summary's copy is
    /// wiped here, the line by the caller once written); nil when the full binary must answer.
    static func tokenLine(_ request: FrontRequest) -> [UInt8]? {
        FrontSodium.ready()
        var files = FrontFiles()
        guard let name = profileName(request, &files) else { return nil }
        let directory = request.configDirectory + Array("/profiles/".utf8) + name
        guard case .bytes(let profile)? = files.read(directory + Array("/profile.json".utf8), limit: 1 << 20, protection: .owned),
            case .bytes(let cache)? = files.read(directory + Array("/tokens.enc".utf8), limit: 1 << 20, protection: .secret),
            var key = readKey(request, &files)
        else { return nil }
        defer { wipe(&key) }
        guard let recorded = recordedGeneration(request.dataDirectory + Array("/generations/".utf8) + name, &files),
            case .bytes(let sealed)? = files.read(directory + Array("/status.enc".utf8), limit: 256 * 1024, protection: .secret),
            var summary = FrontSummary.open(sealed, key: key, profile: name)
        else { return nil }
        defer { wipe(&summary.token) }
        guard summary.vouchesFor(profile: profile, cache: cache, recorded: recorded),
            summary.isFresh(now: front_now(), minimumTTL: minimumTTL)
        else { return nil }
        return summary.token + [10]
    }

    /// `--profile`, else `PINGCLI_PROFILE`, else the current profile (`current-profile`, read whenever
    /// `PINGCLI_PROFILE` is not set, as the full binary does even with `--profile`), else "default".
    static func profileName(_ request: FrontRequest, _ files: inout FrontFiles) -> [UInt8]? {
        var current: [UInt8]? = nil
        if request.environmentProfile == nil {
            switch files.read(request.configDirectory + Array("/current-profile".utf8), limit: 1024, protection: .owned) {
            case nil: return nil
            case .absent?: break
            case .bytes(var bytes)?:
                if bytes.last == 10 { bytes.removeLast() }
                guard FrontRequest.isProfileName(bytes) else { return nil }
                current = bytes
            }
        }
        return request.profile ?? request.environmentProfile ?? current ?? Array("default".utf8)
    }

    /// The key as the full binary loads it (`KeySource.loadResolved`): with `PINGCLI_KEY_STORE=file` the key
    /// file (32 bytes); otherwise a Secret Service item's key when `keyring-item` names one, from the
    /// kernel keyring's copy only (asking the Secret Service is the full binary's), else the key file
    /// (not for `PINGCLI_KEY_STORE=keyring`, which then fails in the full binary).
    static func readKey(_ request: FrontRequest, _ files: inout FrontFiles) -> [UInt8]? {
        if !request.fileKeyStore {
            switch files.read(request.dataDirectory + Array("/keyring-item".utf8), limit: 256, protection: .secret) {
            case nil: return nil
            case .bytes(let item)?: return FrontKeyring.key(item: item)
            case .absent?: if request.keyringKeyStore { return nil }
            }
        }
        guard case .bytes(var key)? = files.read(request.dataDirectory + Array("/key".utf8), limit: 4096, protection: .secret) else {
            return nil
        }
        guard key.count == 32 else {
            wipe(&key)
            return nil
        }
        return key
    }

    /// The generation recorded beside the key: 0 when there is no record; nil unless the file is what
    /// pingcli writes (digits and a newline).
    static func recordedGeneration(_ path: [UInt8], _ files: inout FrontFiles) -> UInt64? {
        switch files.read(path, limit: 64, protection: .secret) {
        case nil: return nil
        case .absent?: return 0
        case .bytes(var bytes)?:
            if bytes.last == 10 { bytes.removeLast() }
            guard !bytes.isEmpty, bytes.count <= 19 else { return nil }
            var value: UInt64 = 0
            for byte in bytes {
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + UInt64(byte - 0x30)
            }
            return value
        }
    }
}
