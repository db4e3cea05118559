import PingBase
import PingCommandLine
import PingFlowCore
import PingLogin
import PingOAuth
import PingPlatform
import PingSession
import PingState

#if canImport(Glibc)
    import Glibc
#endif

/// `pingcli setup kubectl [--kubeconfig FILE] [--user NAME] [--dry-run]`: signs in when the profile has no
/// usable session, shows the ID token's claims a cluster maps, and writes the kubeconfig's user entry (an
/// exec plugin running this pingcli's `token --format exec-credential --id-token`, with the issuer and client
/// in its `env` so that kubectl signs in on first use on a new machine), as `kubelogin setup` prints.
package enum SetupKubectl {
    /// What `setup kubectl` and its `--remove` act on: whether only to show it, the kubeconfig's path and
    /// the user entry's name.
    static func target(
        _ parsed: ParsedOptions, common: CommonOptions, environment: Environment
    ) throws(PingCLIError) -> (dryRun: Bool, path: String, user: String) {
        (
            parsed.flag(SetupCommand.Option.dryRun),
            try kubeconfigPath(parsed.value(SetupCommand.Option.kubeconfig), environment: environment),
            try userName(parsed.value(SetupCommand.Option.user), profile: common.profile)
        )
    }

    package static func run(
        _ parsed: ParsedOptions, common: CommonOptions, environment: Environment, context: CommandContext
    ) throws(PingCLIError) {
        let (dryRun, path, user) = try target(parsed, common: common, environment: environment)
        // The file is checked before any sign-in: a kubeconfig pingcli cannot edit fails at once.
        let existing = try read(path)
        var entry = KubeconfigUsers.ExecEntry(name: user, apiVersion: "", command: "", args: [], env: [])
        _ = try edit(entry, existing, path: path)
        let (profile, claims) = try session(common.profile, dryRun: dryRun, environment: environment, context: common.applied(to: context))
        context.console.err(describe(claims, profile: common.profile))
        let kubectl = KubectlTool.find(environment)
        entry.apiVersion = kubectl?.execAPIVersion() ?? ExecCredential.v1
        entry.command = try SetupCommand.ownPath()
        entry.args = ["token", "--format", "exec-credential", "--id-token", "--profile", common.profile.value]
        entry.env = [("PINGCLI_ISSUER", profile.issuer), ("PINGCLI_CLIENT_ID", profile.clientID)]
        if let caFile = profile.caFile { entry.env.append(("PINGCLI_CA_FILE", caFile)) }
        var edited = try edit(entry, existing, path: path)
        // Other text, the same meaning (kubectl rewrote the file): nothing to write.
        if edited.outcome == .replaced, let kubectl, try kubectl.readsAlike(entry, in: path) { edited.outcome = .unchanged }
        let place = "kubeconfig \(displaySafe(path)), user \"\(displaySafe(user))\""
        if dryRun {
            let what = ["would be added", "would be replaced", "unchanged"][
                [.added, .replaced, .unchanged].firstIndex(of: edited.outcome)!]
            context.console.out((["# \(place) (\(what)):", "users:"] + entry.lines()).joined(separator: "\n"))
            return
        }
        guard edited.outcome != .unchanged else {
            return context.console.err("\(place) already runs pingcli for profile \"\(common.profile)\": nothing to change.")
        }
        let before = try existing == nil ? 0 : kubectl?.users(in: path).count ?? 0
        try write(edited.text, to: path) { (temporary: String) throws(PingCLIError) in
            guard let kubectl else { return }
            let users = try kubectl.users(in: temporary)
            let expected = before + (edited.outcome == .added ? 1 : 0)
            guard users.count == expected,
                users.filter({ $0.name == user }) == [.init(name: user, command: entry.command, args: entry.args)]
            else {
                throw .failure(
                    "kubectl reads the edited kubeconfig differently than pingcli meant it: nothing written; add the entry by hand",
                    rule: .setupKubeconfig)
            }
        }
        context.console.err(
            "\(place) \(edited.outcome == .added ? "added" : "replaced"): kubectl gets its token from pingcli (profile \"\(common.profile)\"). \(contextAdvice(edited.text, path: path, user: user, environment: environment))"
        )
    }

    /// The kubeconfig's text with `entry` in it, or why pingcli cannot edit it.
    package static func edit(
        _ entry: KubeconfigUsers.ExecEntry, _ existing: String?, path: String
    ) throws(PingCLIError) -> (text: String, outcome: KubeconfigUsers.Outcome) {
        do {
            return try KubeconfigUsers.upsert(entry, into: existing ?? "")
        } catch {
            throw .failure(
                "cannot edit the kubeconfig \(displaySafe(path)): \(error.reason): add the entry pingcli setup kubectl --dry-run prints by hand",
                rule: .setupKubeconfig
            )
        }
    }

    /// `--kubeconfig`, else the first file in `KUBECONFIG` (kubectl writes new entries there), else `~/.kube/config`.
    package static func kubeconfigPath(_ option: String?, environment: Environment) throws(PingCLIError) -> String {
        var path = option ?? ""
        if path.isEmpty, let list = environment["KUBECONFIG"] {
            path = list.split(separator: ":").first.map(String.init) ?? ""
        }
        if path.isEmpty {
            guard let home = environment["HOME"], home.hasPrefix("/") else {
                throw .usage("HOME is not set: name the file with --kubeconfig", rule: .setupKubeconfig)
            }
            path = home + "/.kube/config"
        }
        guard !path.contains("\0"), path.utf8.count < 4096 else {
            throw .usage("--kubeconfig must be a file's path", rule: .setupKubeconfig)
        }
        if !path.hasPrefix("/") {
            var buffer = [CChar](repeating: 0, count: 4096)
            guard getcwd(&buffer, buffer.count) != nil else {
                throw .failure("cannot tell the current directory: name the kubeconfig by its absolute path", rule: .setupKubeconfig)
            }
            path = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + "/" + path
        }
        // A kubeconfig that is a symbolic link (to a dotfiles checkout) is edited where it points.
        var resolved = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        if realpath(path, &resolved) != nil {
            path = String(decoding: resolved.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
            throw .usage(
                "the kubeconfig \(displaySafe(path)) is \(FileType(mode: info.st_mode).phrase), not a file: name a file with --kubeconfig",
                rule: .setupKubeconfig
            )
        }
        return path
    }

    /// `--user`, else `pingcli-PROFILE`.
    package static func userName(_ option: String?, profile: ProfileName) throws(PingCLIError) -> String {
        guard let option else { return "pingcli-\(profile)" }
        guard !option.isEmpty, option.utf8.count <= 253, option.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F }) else {
            throw .usage("--user must be a kubeconfig user name: visible characters, no spaces, at most 253 bytes", rule: .setupUserGate)
        }
        return option
    }

    /// The profile's settings and the ID token's claims; signs in first (not for `--dry-run`) when no
    /// session is usable. `--dry-run` without a session: the settings, no claims.
    package static func session(
        _ name: ProfileName, dryRun: Bool, environment: Environment, context: CommandContext
    ) throws(PingCLIError) -> (Profile, IDTokenClaims?) {
        let signIn = try HelperSignIn(caller: dryRun ? nil : .setup, environment: environment, context: context)
        var provider = TokenProvider(profile: name, context: signIn.context.forSession)
        provider.kind = .id
        do {
            let result = try signIn.fresh(provider, minimumTTL: MinimumTTLOption.defaultSeconds)
            return (result.profile, result.tokens.idToken.flatMap { try? IDTokenClaims.decode($0.value) })
        } catch {
            guard dryRun, HelperSignIn.mends(error), let profile = try? context.store.readProfile(name) else { throw error }
            return (profile, nil)
        }
    }

    /// What a cluster's OIDC authenticator would map: `sub` (the default username claim), `email` and
    /// `groups` (the usual `--oidc-username-claim` and `--oidc-groups-claim`).
    package static func describe(_ claims: IDTokenClaims?, profile: ProfileName) -> String {
        guard let claims else {
            return
                "Profile \"\(profile)\" is not signed in, so its ID token's claims are not shown: pingcli setup kubectl without --dry-run signs in."
        }
        func value(_ claim: String) -> String {
            switch claims.all[claim] {
            case .string(let text)?: return displaySafe(text, limit: 200)
            case .array(let items)?:
                let names = items.compactMap(\.stringValue)
                return names.isEmpty ? "[] (empty)" : displaySafe(names.joined(separator: ", "), limit: 400)
            case nil, .null?: return "(absent: a cluster that maps the \(claim) claim gets none; the provider must add it to the ID token)"
            case let other?: return displaySafe(other.rendered(pretty: false), limit: 200)
            }
        }
        return """
            The ID token of profile "\(profile)" names you to a cluster by these claims (its OIDC authenticator maps one to your user name and groups to RBAC groups):
              sub:    \(value("sub"))
              email:  \(value("email"))
              groups: \(value("groups"))
            """
    }

    /// The kubeconfig's text (or another configuration file's: `what`, with `hint` for the next step and
    /// `rule`); nil when it does not exist. Only a file of this user, not writable by group or others, and
    /// at most 4 MiB is read.
    package static func read(
        _ path: String, what: String = "kubeconfig", hint: String = "name another file with --kubeconfig", rule: Rule = .setupKubeconfig
    ) throws(PingCLIError) -> String? {
        var info = stat()
        if stat(path, &info) != 0 && errno != ENOENT {
            throw .failure("cannot use the \(what) \(displaySafe(path)): \(FileSystem.errnoText()): \(hint)", rule: rule)
        }
        guard let bytes = try FileAdvice.worded(try FileSystem.read(path, limit: 4 << 20, protection: .owned)) else { return nil }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .failure("the \(what) \(displaySafe(path)) is not UTF-8 text: \(hint)", rule: rule)
        }
        return text
    }

    /// Writes `text` to `path` atomically (its directory made when missing), keeping the file's mode
    /// (0600 for a new one); `check` sees the complete temporary file first and may refuse it.
    package static func write(
        _ text: String, to path: String, what: String = "kubeconfig", hint: String = "name another file with --kubeconfig",
        rule: Rule = .setupKubeconfig, check: (String) throws(PingCLIError) -> Void
    ) throws(PingCLIError) {
        let directory = FileSystem.parent(of: path)
        var info = stat()
        if stat(directory, &info) != 0 {
            guard errno == ENOENT, mkdir(directory, 0o755) == 0 || errno == EEXIST else {
                throw .failure(
                    "cannot create the \(what)'s directory \(displaySafe(directory)): \(FileSystem.errnoText()): \(hint)", rule: rule)
            }
        }
        let mode = stat(path, &info) == 0 ? info.st_mode & 0o777 : 0o600
        var refusal: PingCLIError?
        do {
            try FileSystem.atomicWrite(path, Array(text.utf8), mode: mode) { temporary in
                do throws(PingCLIError) { try check(temporary) } catch {
                    refusal = error
                    return false
                }
                return true
            }
        } catch {
            throw error.cliError
        }
        if let refusal { throw refusal }
    }
}
