import CFront

/// What the front answers: `pingcli [--profile NAME] token [--raw] [--profile NAME]` (without `--raw` only
/// when stdout is not a terminal, where the full binary's default is raw too), with no setting in the
/// environment that could change the answer. nil: anything else, for the full binary.
struct FrontRequest {
    /// `--profile`'s value, when given.
    var profile: [UInt8]?
    /// `PINGCLI_PROFILE`, when set (the full binary then reads no `current-profile`).
    var environmentProfile: [UInt8]?
    /// `PINGCLI_KEY_STORE=file`: the key file alone, no look for a Secret Service item first.
    var fileKeyStore = false
    /// `PINGCLI_KEY_STORE=keyring`: a Secret Service item's key, never a key file.
    var keyringKeyStore = false
    /// `$XDG_CONFIG_HOME/pingcli` and `$XDG_DATA_HOME/pingcli` (or under `$HOME`), as `Paths` makes them.
    var configDirectory: [UInt8] = []
    var dataDirectory: [UInt8] = []

    init?(argc: Int, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) {
        guard parseArguments(argc: argc, argv: argv), readEnvironment() else { return nil }
        guard let config = Self.base("XDG_CONFIG_HOME", fallback: ".config"),
            let data = Self.base("XDG_DATA_HOME", fallback: ".local/share"),
            Self.base("XDG_STATE_HOME", fallback: ".local/state") != nil
        else { return nil }
        configDirectory = config + Array("/pingcli".utf8)
        dataDirectory = data + Array("/pingcli".utf8)
    }

    /// The arguments, each option at most once; anything else (another command or option, `--help`, a
    /// repeated option, a value that is not a profile name) is the full binary's to answer or refuse.
    private mutating func parseArguments(argc: Int, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Bool {
        var index = 1
        var raw = false
        var command = false
        while index < argc {
            guard let argument = argv[index] else { return false }
            index += 1
            if !command && Bytes.equal(argument, "token") {
                command = true
            } else if command && Bytes.equal(argument, "--raw") && !raw {
                raw = true
            } else if Bytes.equal(argument, "--profile") && profile == nil && index < argc, let value = argv[index] {
                profile = Bytes.of(value)
                index += 1
            } else if profile == nil && Bytes.startsWith(argument, "--profile=") {
                profile = Bytes.of(argument + 10)
            } else {
                return false
            }
            if let profile, !Self.isProfileName(profile) { return false }
        }
        // Without --raw, the full binary prints raw only when stdout is not a terminal.
        return command && (raw || isatty(1) == 0)
    }

    /// Every `PINGCLI_` variable the front does not know sends the command to the full binary: the key
    /// command, the keyring, a timeout to check, the test switches of a debug build. Those a plain `token`
    /// never reads on a cache hit (the sign-in's settings, the browser, git's user name, the device key's
    /// algorithm, the helper's sign-in policy, which a plain `token` does not consult) change nothing.
    private mutating func readEnvironment() -> Bool {
        guard let environment = front_environment() else { return true }
        var index = 0
        var storeSeen = false
        while let entry = environment[index] {
            index += 1
            // Most variables are not pingcli's: looked at in place, never copied.
            guard Bytes.startsWith(entry, "PINGCLI_") else { continue }
            if Bytes.startsWith(entry, "PINGCLI_PROFILE=") && environmentProfile == nil {
                let value = Bytes.of(entry + 16)
                guard Self.isProfileName(value) else { return false }
                environmentProfile = value
            } else if Bytes.equal(entry, "PINGCLI_KEY_STORE=file") && !storeSeen {
                storeSeen = true
                fileKeyStore = true
            } else if Bytes.equal(entry, "PINGCLI_KEY_STORE=keyring") && !storeSeen {
                storeSeen = true
                keyringKeyStore = true
            } else if !Self.unread(entry) {
                return false
            }
        }
        return true
    }

    /// Whether the variable is one a plain `token` leaves unread on a cache hit.
    private static func unread(_ entry: UnsafePointer<CChar>) -> Bool {
        Bytes.startsWith(entry, "PINGCLI_BROWSER=") || Bytes.startsWith(entry, "PINGCLI_ISSUER=")
            || Bytes.startsWith(entry, "PINGCLI_CLIENT_ID=") || Bytes.startsWith(entry, "PINGCLI_CLIENT_SECRET=")
            || Bytes.startsWith(entry, "PINGCLI_CA_FILE=") || Bytes.startsWith(entry, "PINGCLI_GIT_USERNAME=")
            || Bytes.startsWith(entry, "PINGCLI_DEVICE_KEY_ALGORITHM=") || Bytes.startsWith(entry, "PINGCLI_HELPER_LOGIN=")
    }

    /// `Paths`' rule: the variable when it is an absolute path, else `$HOME/fallback` when HOME is one.
    /// Only ASCII paths: the full binary judges any other the long way.
    private static func base(_ variable: StaticString, fallback: StaticString) -> [UInt8]? {
        var result: [UInt8]
        if let value = getenv(UnsafeRawPointer(variable.utf8Start).assumingMemoryBound(to: CChar.self)), value[0] == 0x2F {
            result = Bytes.of(value)
        } else if let home = getenv("HOME"), home[0] == 0x2F {
            result = Bytes.of(home) + [0x2F]
            for index in 0..<fallback.utf8CodeUnitCount { result.append(fallback.utf8Start[index]) }
        } else {
            return nil
        }
        for byte in result where byte == 0 || byte >= 0x80 { return nil }
        return result
    }

    /// `ProfileName`'s rule: 1 to 64 of `A-Z a-z 0-9 . _ -`, not starting with a dot (nor, here, with a
    /// dash, which the full binary's parser may read as an option).
    static func isProfileName(_ bytes: [UInt8]) -> Bool {
        guard !bytes.isEmpty, bytes.count <= 64, bytes[0] != UInt8(ascii: "."), bytes[0] != UInt8(ascii: "-") else { return false }
        for byte in bytes {
            let letter = (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            let digit = byte >= 0x30 && byte <= 0x39
            guard letter || digit || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") else {
                return false
            }
        }
        return true
    }
}
