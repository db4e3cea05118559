import PingBase
import PingPlatform
import PingState

/// The login that signs a saved profile in again, as it is saved: `pingcli login --profile NAME`, and for
/// a client that proves itself with a client secret (never saved) the option that gives the secret, so
/// the command runs as printed.
package func loginCommand(for name: ProfileName, profile: Profile) -> String {
    let command = loginCommand(for: name, hasSettings: true)
    guard profile.grantType == .clientCredentials, profile.clientAssertionKeyFile == nil, profile.clientCertificateFile == nil else {
        return command
    }
    return command + " --client-secret-file PATH (or with PINGCLI_CLIENT_SECRET set)"
}

extension TokenProvider {
    /// Not logged in, for a profile whose settings are saved: the login that signs it in again.
    package func notLoggedIn(profile: Profile) -> PingCLIError {
        PingCLIError(
            .loginRequired, "not logged in for profile \"\(profileName)\": run \(loginCommand(for: profileName, profile: profile))",
            rule: .notLoggedIn)
    }
}
