import PingBase
import PingCommandLine
import PingFlowCore
import PingOAuth
import PingPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// `login --client-cert`, `--client-key` and `--pin`, through their gates before any network.
package enum ClientTLSInputs {
    package static let specs = [
        OptionSpec(
            LoginOption.clientCert, valueName: "PEM",
            help: "mutual TLS (RFC 8705): the client's certificate; tls_client_auth or self_signed_tls_client_auth; saved"),
        OptionSpec(
            LoginOption.clientKey, valueName: "PEM", help: "the private key of --client-cert, unencrypted, mode 0600; saved as a path"),
        OptionSpec(
            LoginOption.pin, valueName: "sha256//BASE64", repeatable: true,
            help: "pin the server's public key (repeatable, any one matches); saved, applied to every request of the profile"),
    ]

    /// The largest certificate or key file read (a certificate chain is a few KiB).
    package static let maximumFileBytes = 64 * 1024

    /// The options as given: both paths made absolute, or neither given; each pin checked.
    package static func given(certificate: String?, key: String?, pins: [String]) throws(PingCLIError) -> ClientTLS {
        var settings = ClientTLS()
        switch (certificate, key) {
        case (let certificate?, let key?):
            settings.certificateFile = try absolute(certificate, option: "--client-cert")
            settings.keyFile = try absolute(key, option: "--client-key")
        case (nil, nil): break
        case (nil, _?): throw .usage("--client-key needs --client-cert: give the client's certificate too", rule: .clientTLSPair)
        case (_?, nil): throw .usage("--client-cert needs --client-key: give the certificate's private key too", rule: .clientTLSPair)
        }
        for text in pins { settings.pins.append(try pin(text)) }
        return settings
    }

    /// The given settings, or the saved ones (`saved`: a profile's for the same issuer) where none is
    /// given. Pure.
    package static func settings(_ given: ClientTLS, issuer: IssuerURL, saved: ClientTLS?) throws(PingCLIError) -> ClientTLS {
        var settings = given
        if given.certificateFile == nil {
            settings.certificateFile = saved?.certificateFile
            settings.keyFile = saved?.keyFile
        }
        if given.pins.isEmpty { settings.pins = saved?.pins ?? [] }
        if !settings.pins.isEmpty, !issuer.value.hasPrefix("https://") {
            throw .usage(
                "--pin needs an https issuer: a pin checks a TLS server key, and \(displaySafe(issuer.value)) is plain http", rule: .pinGate
            )
        }
        return settings
    }

    /// The certificate and key files the settings name, through their gates (the certificate valid at `now`).
    package static func load(_ settings: ClientTLS, now: Double) throws(PingCLIError) -> LoginTLS {
        guard let certificatePath = settings.certificateFile, let keyPath = settings.keyFile else {
            return LoginTLS(settings: settings)
        }
        let certificate = try Self.certificate(certificatePath, option: "--client-cert", now: now)
        try checkKey(keyPath)
        return LoginTLS(settings: settings, certificate: certificate)
    }

    /// `--pin`: `sha256//` and the base64 SHA-256 of the server's SubjectPublicKeyInfo.
    package static func pin(_ text: String) throws(PingCLIError) -> KeyPin {
        do {
            return try KeyPin(checking: text)
        } catch {
            throw .usage(
                "--pin \"\(displaySafe(text, limit: 80))\" \(error.message): give sha256// and the base64 SHA-256 of the server's public key (openssl x509 -pubkey | openssl pkey -pubin -outform DER | openssl dgst -sha256 -binary | base64)",
                rule: .pinGate
            )
        }
    }

    /// The certificate file: this user's regular file (the file gate), a PEM certificate, valid at `now`.
    package static func certificate(_ path: String, option: String, now: Double) throws(PingCLIError) -> ClientCertificate {
        let shown = displaySafe(path, limit: 200)
        guard let bytes = try FileAdvice.worded(try FileSystem.read(path, limit: maximumFileBytes, protection: .owned)) else {
            throw .usage("\(option) \(shown) does not exist: give the PEM file of the client's certificate", rule: .clientCertificateFile)
        }
        do {
            let certificate = try ClientCertificate(pem: bytes)
            try certificate.checkValid(at: now)
            return certificate
        } catch {
            let fix =
                switch error {
                case .expired, .notYetValid: "renew the client certificate, then run pingcli login with it"
                case .noCertificate, .notDER: "give the PEM file of the client's certificate"
                }
            throw .usage("\(option) \(shown) \(error.message): \(fix)", rule: .clientCertificateFile)
        }
    }

    /// The key file: this user's, closed to group and others (the secret file gate), an unencrypted PEM
    /// private key. Its bytes are wiped at once; only the path goes on, to libcurl.
    package static func checkKey(_ path: String) throws(PingCLIError) {
        let shown = displaySafe(path, limit: 200)
        guard var bytes = try FileAdvice.worded(try FileSystem.read(path, limit: maximumFileBytes, protection: .secret)) else {
            throw .usage("--client-key \(shown) does not exist: give the PEM file of the certificate's private key", rule: .clientKeyFile)
        }
        let problem = ClientKeyFile.check(bytes)
        FileSystem.wipe(&bytes)
        switch problem {
        case nil: return
        case .encrypted:
            throw .usage(
                "--client-key \(shown) is encrypted: pingcli cannot ask for its passphrase; give an unencrypted key (mode 0600)",
                rule: .clientKeyFile)
        case .notPrivateKey:
            throw .usage(
                "--client-key \(shown) holds no PEM private key (-----BEGIN PRIVATE KEY-----): give the certificate's private key",
                rule: .clientKeyFile)
        }
    }

    /// A path made absolute: it is saved with the profile and used from any directory.
    package static func absolute(_ path: String, option: String) throws(PingCLIError) -> String {
        guard !path.hasPrefix("/") else { return path }
        guard let directory = getcwd(nil, 0) else {
            throw .usage(
                "\(option) \(displaySafe(path, limit: 200)) is relative and the current directory is unknown: give an absolute path",
                rule: .pathAbsolute)
        }
        defer { free(directory) }
        return String(cString: directory) + "/" + (path.hasPrefix("./") ? String(path.dropFirst(2)) : path)
    }
}
