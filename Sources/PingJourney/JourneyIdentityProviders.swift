import PingAM
import PingBase

/// Social and enterprise sign-in inside a journey (`reference/am-social.md`): the Select Identity
/// Provider node's menu (or `--idp NAME`), the Social Provider Handler's browser redirect handed to
/// the walker, and its NATIVE form refused.
extension JourneyPrompter {
    /// The menu's prompt, also the name an answers file gives it.
    package static let identityProviderPrompt = "Sign in with"
    /// How the `localAuthentication` entry is shown.
    package static let localAuthenticationLabel = "Sign in here instead (this service's own sign-in)"

    /// The step's social part, if it has one: a redirect to follow, or a refusal; nil for every other step.
    package func federation(_ step: JourneyStep) throws(PingCLIError) -> Outcome? {
        for callback in step.callbacks {
            switch callback.kind {
            case .socialRedirect(.success(let redirect)): return .federate(redirect)
            case .socialRedirect(.failure(let refusal)):
                throw .failure("login failed: \(refusal.message)", rule: .journeyIdpRedirect)
            case .nativeIdP(let request):
                let provider = displaySafe(request.provider, limit: 80)
                let line =
                    "the journey asks for a token from \(provider.isEmpty ? "an identity provider" : provider)'s own app SDK (the Social Provider Handler's NATIVE client type), which a terminal does not have"
                let fix = "the AM administrator can set Client Type BROWSER in that node for this journey (docs/ping-setup.md)"
                guard callback.inputs.contains(where: { $0.name.hasSuffix("clientError") }) else {
                    throw .failure("login failed: \(line): \(fix)", rule: .journeyIdpNative)
                }
                console.err("pingcli: \(line): telling the journey so (\(fix)).")
                return .answer([callback.position: callback.values(.clientError("Unsupported"))])
            default: continue
            }
        }
        return nil
    }

    /// A Select Identity Provider callback on a page with other prompts (a login page offering both):
    /// the provider asked first, and whether it is the local sign-in (then the page's prompts follow).
    package func providerOnPage(_ step: JourneyStep) throws(PingCLIError) -> (position: Int, answer: JourneyAnswer, local: Bool)? {
        guard let callback = step.callbacks.first(where: { if case .selectIdP = $0.kind { true } else { false } }),
            case .selectIdP(let providers) = callback.kind,
            step.callbacks.contains(where: { $0.position != callback.position && !$0.inputs.isEmpty })
        else { return nil }
        let answer = try chooseProvider(providers)
        return (callback.position, answer, answer == .text(IdentityProviderChoice.localAuthentication))
    }

    /// The provider to sign in with: `--idp NAME` when given (a name the step does not list is refused,
    /// listing those it does), else a numbered menu of the display names.
    package func chooseProvider(_ providers: [IdentityProviderChoice]) throws(PingCLIError) -> JourneyAnswer {
        let names = providers.map { displaySafe($0.name, limit: 80) }.joined(separator: ", ")
        if let wanted = identityProvider {
            guard let match = providers.first(where: { $0.name == wanted }) else {
                throw .usage(
                    "--idp \(displaySafe(wanted, limit: 80)): the journey offers no identity provider of that name; it offers \(names): give one of them",
                    rule: .journeyIdpUnknown)
            }
            return .text(match.name)
        }
        let prompt = Self.identityProviderPrompt
        if terminal == nil && answers?.value(for: prompt) == nil {
            throw .loginRequired(
                "the journey asks which identity provider to sign in with and there is no terminal to ask on: give --idp NAME (one of \(names)), or run pingcli login on a terminal",
                rule: .journeyNoAnswer)
        }
        let labels = providers.map { $0.isLocal ? Self.localAuthenticationLabel : $0.displayName }
        // An answers file may give the provider's name as well as its label or number.
        if let value = answers?.value(for: prompt), let match = providers.first(where: { $0.name == value }) { return .text(match.name) }
        return .text(providers[try menu(prompt, labels, nil)].name)
    }
}
