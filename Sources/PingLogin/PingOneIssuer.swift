import PingBase
import PingCommandLine

/// `login --pingone ENV_ID [--region …]` and `--pingone-domain DOMAIN`: PingOne by its own coordinates,
/// as Ping's CLI takes them, turned into the issuer (`https://auth.pingone.<tld>/<env-id>/as`).
package enum PingOneIssuer {
    /// PingOne's regions and the top-level domain of each one's `auth.pingone` host.
    package static let regions: [(name: String, domain: String)] = [
        ("na", "com"), ("eu", "eu"), ("ca", "ca"), ("ap", "asia"), ("au", "com.au"), ("sg", "sg"),
    ]

    package static let specs: [OptionSpec] = [
        OptionSpec(
            LoginOption.pingOne, valueName: "ENV_ID",
            help: "a PingOne environment's id (a UUID): the issuer is https://auth.pingone.<region>/ENV_ID/as"),
        OptionSpec(
            LoginOption.region, valueName: "REGION",
            help: "with --pingone: \(regions.map(\.name).joined(separator: ", ")) (default na: auth.pingone.com)"),
        OptionSpec(LoginOption.pingOneDomain, valueName: "DOMAIN", help: "a PingOne custom domain: the issuer is https://DOMAIN/as"),
    ]

    /// The issuer the PingOne options name, with a line saying how it was built; nil when none is given.
    /// Every combination that could mean two issuers is a usage error.
    package static func issuer(
        environmentID environment: String?, domain: String?, region: String?, issuer: String?
    ) throws(PingCLIError) -> (issuer: String, description: String)? {
        if environment == nil && domain == nil {
            guard region == nil else {
                throw .usage("--region goes with --pingone ENV_ID: add it, or leave out --region", rule: .pingOneOptions)
            }
            return nil
        }
        if issuer != nil {
            throw .usage(
                "--issuer cannot be combined with --\(environment != nil ? "pingone" : "pingone-domain"): choose one", rule: .optionConflict
            )
        }
        if let domain {
            guard environment == nil else {
                throw .usage("--pingone and --pingone-domain cannot be combined: choose one", rule: .optionConflict)
            }
            guard region == nil else {
                throw .usage("--region goes with --pingone, not --pingone-domain: leave it out", rule: .pingOneOptions)
            }
            guard isHostName(domain) else {
                throw .usage(
                    "--pingone-domain must be a host name such as auth.example.com (no scheme, path or port), not \"\(displaySafe(domain, limit: 60))\"",
                    rule: .pingOneOptions
                )
            }
            let issuer = "https://\(domain.lowercased())/as"
            return (issuer, "PingOne custom domain \(domain.lowercased()): issuer \(issuer)")
        }
        let id = environment ?? ""
        guard isUUID(id) else {
            throw .usage(
                "--pingone needs the environment's id, a UUID such as 9e8f7a6b-5c4d-4e3f-8a1b-0c9d8e7f6a5b, not \"\(displaySafe(id, limit: 60))\"",
                rule: .pingOneOptions
            )
        }
        let name = (region ?? "na").lowercased()
        guard let entry = regions.first(where: { $0.name == name }) else {
            throw .usage(
                "--region must be one of \(regions.map(\.name).joined(separator: ", ")), not \"\(displaySafe(name, limit: 20))\"",
                rule: .pingOneOptions
            )
        }
        let issuer = "https://auth.pingone.\(entry.domain)/\(id.lowercased())/as"
        return (issuer, "PingOne environment \(id.lowercased()) in region \(entry.name): issuer \(issuer)")
    }

    /// 8-4-4-4-12 hexadecimal digits.
    package static func isUUID(_ text: String) -> Bool {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        return groups.map(\.count) == [8, 4, 4, 4, 12] && groups.allSatisfy { $0.utf8.allSatisfy(\.isHexDigit) }
    }

    /// A DNS name: dot-separated labels of letters, digits and inner hyphens, 1–63 each, 253 in all, with a dot.
    package static func isHostName(_ text: String) -> Bool {
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        return text.utf8.count <= 253 && labels.count >= 2
            && labels.allSatisfy { label in
                (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                    && label.utf8.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || $0 == UInt8(ascii: "-") }
            }
    }
}
