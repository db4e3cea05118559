import PingBase

/// The public suffix list (https://publicsuffix.org/list/, Debian's `publicsuffix` package) read into
/// its three kinds of rules: plain (`com`, `co.uk`), wildcard (`*.ck`, kept as `ck`) and exception
/// (`!www.ck`). Only the ASCII rules are kept: a host pingcli sees is ASCII (IDNs as `xn--` labels).
public struct PublicSuffixList: Sendable {
    private var rules: Set<String> = []
    private var wildcards: Set<String> = []
    private var exceptions: Set<String> = []

    /// The rules of the list's text: one a line, the first word of it, `//` comments and blank lines skipped.
    public init(_ bytes: [UInt8]) {
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            let word = line.prefix { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") && $0 != UInt8(ascii: "\r") }
            guard !word.isEmpty, !word.starts(with: Array("//".utf8)), word.allSatisfy({ $0 < 0x80 }) else { continue }
            let rule = String(decoding: word, as: UTF8.self).lowercased()
            if rule.hasPrefix("!") {
                exceptions.insert(String(rule.dropFirst()))
            } else if rule.hasPrefix("*.") {
                wildcards.insert(String(rule.dropFirst(2)))
            } else {
                rules.insert(rule)
            }
        }
    }

    public var isEmpty: Bool { rules.isEmpty && wildcards.isEmpty }

    /// Whether `domain` (lower-case, no trailing dot) is itself a public suffix: a rule names it, a
    /// wildcard rule covers it and no exception takes it out, or it is one label (the list's implicit `*`).
    public func isPublicSuffix(_ domain: String) -> Bool {
        if exceptions.contains(domain) { return false }
        if rules.contains(domain) { return true }
        guard let dot = domain.utf8.firstIndex(of: UInt8(ascii: ".")) else { return true }
        return wildcards.contains(String(domain[domain.index(after: dot)...]))
    }
}

/// The RP id rule of WebAuthn Level 2 §5.1.3 step 8 and §5.1.4.1 step 7 (HTML's "is a registrable domain
/// suffix of or is equal to"): the RP id is the origin's host, or a suffix of it at a label boundary that
/// is not a public suffix. Without a public suffix list only the host itself passes (never a guess).
public enum RelyingPartyRule {
    public enum Refusal: Error, Sendable, Equatable {
        /// Not a host name (a URL, a port, an empty or too long name, characters DNS does not have).
        case notAHost
        /// Neither the origin's host nor a domain it is under.
        case notSuffix
        /// A domain the host is under, but a public suffix (`com`, `co.uk`): anyone's.
        case publicSuffix
        /// A suffix of the host, but no public suffix list to tell whether it is a public suffix.
        case noSuffixList
    }

    /// A DNS host name: labels of letters, digits and hyphens (1 to 63 bytes, no hyphen at either end),
    /// at most 253 bytes, lower-cased; nil otherwise.
    public static func hostName(_ text: String) -> String? {
        let lower = text.lowercased()
        let labels = lower.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...253).contains(lower.utf8.count), !labels.isEmpty else { return nil }
        for label in labels {
            let bytes = Array(label.utf8)
            guard (1...63).contains(bytes.count), bytes.first != UInt8(ascii: "-"), bytes.last != UInt8(ascii: "-"),
                bytes.allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit || $0 == UInt8(ascii: "-") })
            else { return nil }
        }
        return lower
    }

    /// Checks `rpID` against the origin's host `host` (an IP literal passes only when equal).
    public static func check(rpID: String, host: String, suffixes: PublicSuffixList?) throws(Refusal) {
        let host = host.lowercased()
        if rpID.lowercased() == host && !rpID.isEmpty { return }
        guard let rp = hostName(rpID) else { throw .notAHost }
        guard host.hasSuffix("." + rp), hostName(host) != nil else { throw .notSuffix }
        guard let suffixes, !suffixes.isEmpty else { throw .noSuffixList }
        if suffixes.isPublicSuffix(rp) { throw .publicSuffix }
    }
}
