import PingAM
import PingAuthenticators
import PingBase
import PingCrypto
import PingFlowCore
import PingState
import PingWebAuthn

/// What a journey's WebAuthn steps need: where passkeys are kept and the key that seals them, the
/// origin pingcli speaks for (AM's own, or `--webauthn-origin`), how this machine names a credential,
/// the TPM, the public suffix list, and a security key when one can be had (nil: none is wired).
package struct JourneyPasskeys {
    package var store: PasskeyStore
    package var key: CommandKey
    package var clock: WallClock
    /// The origin in clientDataJSON and the journey's `Origin` header: `scheme://host[:port]`.
    package var origin: String
    /// AM's origin and realm, kept with each passkey.
    package var amOrigin: String
    package var realm: String
    /// `pingcli on HOST`: the credential's name at AM (`::deviceName`).
    package var deviceName: String
    package var tpm: TPM2.Access = .absent
    /// The public suffix list (Debian's `publicsuffix`); nil when it is not installed.
    package var suffixes: () -> PublicSuffixList? = { JourneyPasskeys.installedSuffixes() }
    /// A FIDO2 security key, when one is plugged in (nil: no security key support wired, or none plugged).
    package var securityKey: (() -> (any WebAuthnAuthenticator)?)? = nil

    package static let publicSuffixFile = "/usr/share/publicsuffix/public_suffix_list.dat"

    package static func installedSuffixes() -> PublicSuffixList? {
        guard let bytes = LinuxDeviceFacts.systemFile(publicSuffixFile, limit: 4 * 1024 * 1024) else { return nil }
        let list = PublicSuffixList(bytes)
        return list.isEmpty ? nil : list
    }

    /// The host of an origin (`https://host:port` → `host`; `[::1]` kept with its brackets).
    package static func host(of origin: String) -> String {
        let rest = origin.firstRange(ofText: "://").map { origin[$0.upperBound...] } ?? Substring(origin)
        if rest.hasPrefix("[") { return String(rest.prefix { $0 != "]" }) + "]" }
        return String(rest.prefix { $0 != ":" && $0 != "/" })
    }

    /// The step's RP id (else the origin's host), checked against the origin: a host, and the origin's
    /// host or a registrable suffix of it (WebAuthn Level 2 §5.1.3 step 8).
    package func rpID(_ step: WebAuthnStep) throws(PingCLIError) -> String {
        let host = Self.host(of: origin)
        let rpID = step.rpID ?? host
        do {
            try RelyingPartyRule.check(rpID: rpID, host: host, suffixes: rpID == host ? nil : suffixes())
        } catch {
            let shown = displaySafe(rpID, limit: 100)
            let why =
                switch error {
                case .notAHost: "it is not a host name"
                case .notSuffix: "it is neither \(displaySafe(host, limit: 100)) nor a domain that host is under"
                case .publicSuffix: "it is a public suffix, which no one site owns"
                case .noSuffixList:
                    "the public suffix list (\(Self.publicSuffixFile), Debian's publicsuffix) is not installed to tell whether it is a public suffix"
                }
            throw .failure(
                "the journey's WebAuthn step names the relying party \(shown) for the origin \(displaySafe(origin, limit: 100)), and \(why): not answered (a passkey is only used for the site it belongs to; --webauthn-origin names the address AM is published under)",
                rule: .webauthnRpId)
        }
        return rpID
    }
}

/// The person's side of an authenticator: the PIN asked on the terminal (or read from `--answers`
/// under its prompt), a touch announced. A prompt that cannot be answered is kept and rethrown.
final class PasskeyInteraction: AuthenticatorInteraction {
    let prompter: JourneyPrompter
    let pinPrompt: String
    var failure: PingCLIError?
    private var asked = 0

    init(_ prompter: JourneyPrompter, pinPrompt: String) {
        self.prompter = prompter
        self.pinPrompt = pinPrompt
    }

    func touchRequested() { prompter.console.err("Touch your security key.") }

    func pin(retries: Int?, confirm: Bool) -> [UInt8]? {
        do {
            if confirm { return try prompter.newPIN(for: "passkey") }
            // A PIN from the answers file that was refused is not tried again.
            if asked > 0 && prompter.answers?.value(for: pinPrompt) != nil { return nil }
            asked += 1
            return Array(try prompter.line(pinPrompt, secret: true).utf8)
        } catch {
            failure = error
            return nil
        }
    }
}
