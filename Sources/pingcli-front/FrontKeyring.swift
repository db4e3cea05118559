import CFront

/// The cache key of a Secret Service item, from the kernel keyring's copy the full binary keeps in two
/// halves (`KernelKeyCopy`): the wrapping key (`pingcli:cache-wrap:ID`, this session's) and the cache key
/// sealed under it (`pingcli:cache-key:ID`, this uid's), opened with the sealed half's name as associated
/// data. nil when either half is missing or does not open: the full binary then asks the Secret Service.
enum FrontKeyring {
    /// The key for `keyring-item`'s bytes: 32 lowercase hexadecimal digits and an optional newline
    /// (`KeyringKey.itemID`); nil for anything else, which the full binary refuses in its own words.
    static func key(item: [UInt8]) -> [UInt8]? {
        var id = item
        if id.last == 10 { id.removeLast() }
        guard id.count == 32 else { return nil }
        for byte in id where !((byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66)) { return nil }
        let sealedName = Array("pingcli:cache-key:".utf8) + id
        guard var wrap = payload(Array("pingcli:cache-wrap:".utf8) + id, length: 32) else { return nil }
        defer { wipe(&wrap) }
        guard let sealed = payload(sealedName, length: FrontSodium.nonceLength + 32 + FrontSodium.tagLength) else { return nil }
        guard let key = FrontSodium.decrypt(sealed, nonceAt: 0, associatedData: sealedName, key: wrap), key.count == 32 else {
            return nil
        }
        return key
    }

    /// The payload of the "user" key `description` in the session keyring when it is exactly `length` bytes.
    private static func payload(_ description: [UInt8], length: Int) -> [UInt8]? {
        let id = FrontFiles.withCString(description) { front_keyctl_search_session($0) }
        guard id > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: length)
        let count = bytes.withUnsafeMutableBufferPointer { front_keyctl_read(id, $0.baseAddress!, length) }
        guard count == length else {
            wipe(&bytes)
            return nil
        }
        return bytes
    }
}
