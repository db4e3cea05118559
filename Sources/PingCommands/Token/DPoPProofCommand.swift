import PingBase
import PingCommandLine
import PingFlowCore
import PingHTTP
import PingLogin
import PingOAuth
import PingSession

/// `pingcli dpop-proof`: one DPoP proof (RFC 9449 §4) for a request a script makes itself.
package enum DPoPProofCommand {
    /// `dpop-proof`'s own options.
    package enum Option: String, OptionName {
        case method, url, nonce
    }

    package static let specs: [OptionSpec] =
        [
            OptionSpec(Option.method, valueName: "METHOD", help: "the request's HTTP method (htm), e.g. GET"),
            OptionSpec(Option.url, valueName: "URL", help: "the request's URL (htu: sent without its query and fragment)"),
            OptionSpec(Option.nonce, valueName: "NONCE", help: "the server's DPoP-Nonce, when it asked for one"),
            MinimumTTLOption.spec,
        ] + CommonOptions.specs

    package static let help = helpText(
        usage: "pingcli dpop-proof --method METHOD --url URL [--nonce NONCE] [--profile NAME]",
        summary: """
            Prints one DPoP proof (RFC 9449) for that request, signed with the profile's key and bound to its
            current access token (ath), for a profile logged in with --dpop. Send it with the token, one proof
            per request: servers refuse a proof they have seen before.
            """,
        specs: specs,
        footer: """
            Example:
              proof=$(pingcli dpop-proof --method GET --url https://api.example.com/me)
              curl -H "Authorization: DPoP $(pingcli token --raw)" -H "DPoP: $proof" https://api.example.com/me
            """)

    package static func run(_ arguments: [String], environment: Environment, context: CommandContext) throws(PingCLIError) {
        let parsed = try parseOptions(arguments, specs: specs, command: "dpop-proof")
        if parsed.flag(CommonOption.help) { return context.console.help(help) }
        let common = try CommonOptions(parsed, environment: environment)
        guard let method = parsed.value(Option.method), let urlText = parsed.value(Option.url) else {
            throw .usage("pingcli dpop-proof needs --method METHOD and --url URL: see pingcli dpop-proof --help", rule: .commandOperand)
        }
        guard MediaType.isToken(method[...]), method.utf8.count <= 32 else {
            throw .usage("--method \(displaySafe(method, limit: 40)) is not an HTTP method: e.g. GET or POST", rule: .httpMethodGate)
        }
        let url: EndpointURL
        do { url = try APIURL.check(urlText) } catch {
            throw .usage("--url \(displaySafe(urlText, limit: 200)): \(error.message)", rule: .dpopProofInput)
        }
        var nonce: DPoPNonce? = nil
        if let text = parsed.value(Option.nonce) {
            guard let checked = DPoPNonce(text) else {
                throw .usage(
                    "--nonce is not a DPoP nonce (RFC 9449 §8.1: printable ASCII without quotes or backslashes, at most 1 KiB)",
                    rule: .dpopProofInput)
            }
            nonce = checked
        }
        let fresh = try TokenProvider(profile: common.profile, context: common.applied(to: context).forSession)
            .fresh(minimumTTL: try MinimumTTLOption.value(parsed))
        if let warning = fresh.warning { context.console.err("pingcli: warning: \(warning)") }
        guard let key = fresh.tokens.dpopKey else {
            throw .usage(
                "profile \"\(common.profile)\" holds a Bearer token, not a DPoP-bound one: run pingcli login --profile \(common.profile) --dpop",
                rule: .dpopNotBound
            )
        }
        guard
            let proof = DPoPProof.make(
                key: key, method: method, url: url.value, issuedAt: context.clock(), accessToken: fresh.tokens.accessToken.value,
                nonce: nonce)
        else {
            throw .failure("the DPoP key could not sign a proof: run pingcli login --profile \(common.profile) --dpop", rule: .dpopSign)
        }
        context.console.out(proof)
    }
}
