import Foundation

extension EmulatorCommandLine {
    mutating func applyGeneral(_ option: EmulatorOption, _ value: String) throws(EmulatorUsageError) {
        switch option {
        case .port:
            guard let port = UInt16(value) else { throw Self.usage(option, "needs a number 0-65535") }
            configuration.port = port
        case .layout: configuration.layout = try Self.choice(option, value.lowercased(), Layout.self, "pingone, pingfederate or pingam")
        case .envID: configuration.environmentID = try Self.pathSegment(option, value)
        case .realm: configuration.realm = try Self.pathSegment(option, value)
        case .clientID:
            guard !value.isEmpty else { throw Self.usage(option, "must not be empty") }
            clientIDs.append(value)
        case .clientSecret: clientSecret = value
        case .clientSecretFile:
            guard let text = try? String(contentsOfFile: value, encoding: .utf8), let line = text.split(separator: "\n").first,
                !line.isEmpty
            else { throw Self.usage(option, "needs a readable file with the secret on its first line") }
            clientSecret = String(line)
        case .accessTokenTTL: configuration.accessTokenLifetime = try Self.number(option, value, from: 0)
        case .signIn: configuration.signInMode = try Self.choice(option, value, SignInMode.self, "approve or form")
        case .deviceInterval:
            guard let seconds = Double(value), seconds >= 0 else { throw Self.usage(option, "needs seconds") }
            configuration.deviceInterval = seconds
        case .par:
            configuration.pushedAuthorization = try Self.choice(option, value, PushedAuthorizationMode.self, "off, offered or required")
        case .acr:
            guard !value.isEmpty else { throw Self.usage(option, "must not be empty") }
            configuration.acr = value
        case .authTimeAge: configuration.authTimeAge = try Self.number(option, value, from: 0)
        case .postLogoutURI: postLogoutURIs.append(value)
        default: throw Self.usage(option, "is not an option of its own")
        }
    }

    mutating func applyAdministrator(_ option: EmulatorOption, _ value: String) throws(EmulatorUsageError) {
        switch option {
        case .signingAlg:
            configuration.signingAlgorithm = try Self.choice(
                option, value, SigningAlgorithm.self, "one of \(SigningAlgorithm.allCases.map(\.rawValue).joined(separator: ", "))")
        case .accessTokenTyp:
            guard value == "JWT" || value == "at+jwt" else { throw Self.usage(option, "must be JWT or at+jwt") }
            configuration.accessTokenType = value
        case .issInAuthorizationResponse:
            guard value == "on" || value == "off" else { throw Self.usage(option, "must be on or off") }
            configuration.authorizationResponseIssuer = value == "on"
        case .resource:
            let (audience, list) = try Self.idAndValue(option, value)
            let scopes = list.split(separator: ",").map(String.init)
            guard !scopes.isEmpty else { throw Self.usage(option, "needs AUDIENCE=SCOPE[,SCOPE…] with at least one scope") }
            resources.append(CustomResource(name: audience, audience: audience, scopes: scopes))
        case .refreshTokenTTL: configuration.refreshTokenLifetime = try Self.number(option, value, from: 1)
        case .refreshTokenRollingDuration:
            configuration.refreshTokenRollingDuration = value == "none" ? nil : try Self.number(option, value, from: 1)
        case .refreshTokenGrace: configuration.refreshTokenGracePeriod = try Self.number(option, value, from: 0, to: 86400)
        default: throw Self.usage(option, "is not an option of its own")
        }
    }

    mutating func applyTLS(_ option: EmulatorOption, _ value: String) throws(EmulatorUsageError) {
        switch option {
        case .tlsCert: tlsFiles.certificate = value
        case .tlsKey: tlsFiles.key = value
        case .tlsClientCA: tlsFiles.clientCA = value
        case .tlsClientAuth:
            let (id, subject) = try Self.idAndValue(option, value)
            var client = RegisteredClient(clientID: id, authMethod: "tls_client_auth")
            client.tlsClientAuthSubjectDN = subject
            mutualTLSClients.append(client)
        case .selfSignedTLSClientAuth:
            let (id, path) = try Self.idAndValue(option, value)
            let pem = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            let body = pem.components(separatedBy: "\n").filter { !$0.hasPrefix("-----") && !$0.isEmpty }.joined()
            guard let der = Data(base64Encoded: body), !der.isEmpty else { throw Self.usage(option, ": \(path) holds no PEM certificate") }
            var client = RegisteredClient(clientID: id, authMethod: "self_signed_tls_client_auth")
            client.selfSignedCertificateThumbprint = Emulator.thumbprint(ofCertificate: [UInt8](der))
            mutualTLSClients.append(client)
        case .dpopAlgs: configuration.dpop.algorithms = value == "none" ? nil : value.split(separator: ",").map(String.init)
        case .dpopProofLifetime:
            guard let seconds = Double(value), seconds > 0 else { throw Self.usage(option, "needs seconds") }
            configuration.dpop.proofLifetime = seconds
        default: throw Self.usage(option, "is not an option of its own")
        }
    }

    mutating func applyJourney(_ option: EmulatorOption, _ value: String) throws(EmulatorUsageError) {
        switch option {
        case .trees:
            guard let data = FileManager.default.contents(atPath: value) else { throw Self.usage(option, ": cannot read \(value)") }
            do { treeFile = try JourneyTreeFile.load(data) } catch { throw Self.usage(option, ": \(value) is not a tree file: \(error)") }
        case .cookieName:
            guard !value.isEmpty, value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
                throw Self.usage(option, "needs a token name (letters, digits, - and _) or random")
            }
            configuration.journeys.cookieName = value == "random" ? JourneySettings.randomCookieName() : value
        case .totpSecret: totpSecrets.append(try Self.idAndValue(option, value))
        case .pushApproveAfter: configuration.journeys.pushApproveAfterPolls = try Self.number(option, value, from: 1)
        case .authIDTTL: configuration.journeys.authIDLifetime = try Self.number(option, value, from: 1)
        case .suspendedTTL: configuration.journeys.suspendedLifetime = try Self.number(option, value, from: 1)
        case .sessionTTL: configuration.journeys.sessionLifetime = try Self.number(option, value, from: 1)
        default: throw Self.usage(option, "is not an option of its own")
        }
    }
}
