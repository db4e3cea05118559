import PingBase
import PingOAuth

/// `token --scope`, `--resource` and `--audience`: the options, their gate (`TokenTarget`) and what the
/// outputs add for a targeted token.
package enum TargetOptions {
    /// The options that name a narrower token.
    package enum Option: String, OptionName {
        case scope, resource, audience
    }

    package static let specs = [
        OptionSpec(
            Option.scope, valueName: "SCOPES",
            help: "an access token for just these scopes (space-separated, within those of the sign-in)"),
        OptionSpec(Option.resource, valueName: "URI", help: "an access token for this API only (RFC 8707 resource indicator)"),
        OptionSpec(
            Option.audience, valueName: "NAME",
            help: "an access token for this audience (RFC 8693 token exchange; a URI is sent as --resource where exchange is not offered)"),
    ]

    /// The target the options name, nil when none was given (the session's own token). `idToken`: the
    /// command hands out the ID token, which no option narrows.
    package static func target(_ parsed: ParsedOptions, idToken: Bool = false) throws(PingCLIError) -> TokenTarget? {
        let scope = parsed.value(Option.scope)
        let resource = parsed.value(Option.resource)
        let audience = parsed.value(Option.audience)
        guard scope != nil || resource != nil || audience != nil else { return nil }
        guard !idToken else {
            throw PingCLIError(
                .usage, "--id-token cannot be combined with --scope, --resource or --audience, which narrow access tokens: choose one",
                rule: .targetIDToken)
        }
        do { return try TokenTarget(scope: scope, resource: resource, audience: audience) } catch { throw error.cliError }
    }

    /// The JSON output with the target's `resource` and `audience`.
    package static func describe(_ value: JSONValue, _ target: TokenTarget?) -> JSONValue {
        guard let target, case .object(var members) = value else { return value }
        if let resource = target.resource { members["resource"] = .string(resource) }
        if let audience = target.audience { members["audience"] = .string(audience) }
        return .object(members)
    }

    /// The summary with the target's lines (the refresh token line is the session's).
    package static func describe(_ summary: String, _ target: TokenTarget?) -> String {
        guard let target else { return summary }
        var lines = summary.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.removeAll { $0.hasPrefix("refresh token:") }
        if let resource = target.resource { lines.append("resource:      \(displaySafe(resource, limit: 200))") }
        if let audience = target.audience { lines.append("audience:      \(displaySafe(audience, limit: 200))") }
        lines.append("cached:        beside the session's token, in targeted-tokens.enc")
        return lines.joined(separator: "\n")
    }
}
