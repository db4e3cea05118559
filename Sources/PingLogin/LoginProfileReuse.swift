import PingBase
import PingFlowCore
import PingPlatform
import PingState

#if canImport(Glibc)
    import Glibc
#endif

/// Which saved settings a `login` may take without being told: `profile.json` decides where the person
/// signs in and which CA is trusted, and anyone who could write it (a synced or restored `~/.config`,
/// a dotfiles repository) could have chosen them. Only a token cache that decrypts under the key and
/// whose binding matches vouches for the file.
extension LoginCommand {
    /// The saved profile whose settings this login reuses, or nil. A verified profile is reused, and
    /// its issuer named on stderr when the person did not give one. An unverified one is reused without
    /// a given issuer only after the person confirms its issuer on a terminal (without a terminal:
    /// a usage error asking for `--issuer`); with a given issuer, never its CA file, git hosts or
    /// endpoints given at an earlier login.
    package static func savedProfile(
        _ name: ProfileName, givenIssuer: String?, key: CommandKey, context: CommandContext
    ) throws(PingCLIError) -> Profile? {
        let (saved, verified) = context.store.reusableProfile(name, key: key)
        guard var saved else { return nil }
        if verified {
            if givenIssuer == nil {
                context.console.err("Signing in to \(displaySafe(saved.issuer, limit: 200)), the issuer saved in profile \"\(name)\".")
            }
            return saved
        }
        if givenIssuer != nil {
            // The person named the issuer; an unverified file's CA and git hosts are not taken on trust.
            saved.caFile = nil
            saved.gitHosts = nil
            saved.endpointOverrides = nil
            return saved
        }
        let issuer = displaySafe(saved.issuer, limit: 200)
        var ca = saved.caFile.map { " with the CA file \(displaySafe($0, limit: 200))" } ?? ""
        if let hosts = saved.gitHosts, !hosts.isEmpty {
            ca += " and its token for git at \(hosts.map(\.description).joined(separator: ", "))"
        }
        if let endpoints = saved.endpointOverrides, !endpoints.isEmpty {
            ca += " and its own \(endpoints.joined(separator: ", "))"
        }
        let what =
            "profile \"\(name)\" names the issuer \(issuer)\(ca), but no token cache vouches for its profile.json (logged out, copied without its key, or changed outside pingcli)"
        guard context.inputIsTerminal, context.console.errorIsTerminal else {
            throw .usage("\(what): give --issuer URL to sign in (see pingcli login --help)", rule: .profileUnverified)
        }
        context.console.err("pingcli: \(what).")
        context.console.writeErr("Sign in to \(issuer)\(ca)? [y/N] ")
        guard ["y", "yes"].contains(readAnswer(context.input).lowercased()) else {
            throw .usage(
                "not signing in to \(issuer): nothing was changed (pingcli profiles remove \(name) deletes the profile; --profile NAME signs in to another)",
                rule: .profileUnverified
            )
        }
        return saved
    }

    /// One line typed on the terminal (at most 64 bytes kept), without its newline.
    package static func readAnswer(_ descriptor: Int32) -> String {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(descriptor, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 || byte == 10 { break }
            if bytes.count < 64 { bytes.append(byte) }
        }
        return String(decoding: bytes, as: UTF8.self).trimmingWhitespace
    }
}
