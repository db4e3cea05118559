import PingBase
import PingOAuth
import PingPlatform

/// Reading `profile.json` back: the file stays the documented JSON that `saveProfile` writes, but it is
/// read with `JSONReader` and the members below rather than `JSONDecoder`, because every
/// `pingcli token` reads it (docs/performance.md). Unknown members are ignored, as before; a known
/// member of the wrong type makes the file damaged; every URL goes through the endpoint policy again.
package enum SavedProfileError: Error, Sendable, Equatable {
    /// Not JSON, or a member missing or of the wrong type.
    case damaged
    /// A saved URL (the member `field`, the issuer's or one of the metadata's) that the URL gate refuses:
    /// the file was changed outside pingcli.
    case refused(field: String, url: String, reason: URLPolicyError)
}

/// The members of one saved JSON object, typed; absent and `null` are both nil for an optional member.
/// Names and values side by side, in file order: a profile has a score of members, and searching them
/// costs less than hashing them into a dictionary (whose generic metadata every `token` paid for).
package struct SavedObject {
    private var names: [String] = []
    private var values: [JSONValue] = []

    package init(members: [String: JSONValue]) {
        for (name, value) in members {
            names.append(name)
            values.append(value)
        }
    }

    /// The JSON object at `reader`, read without a dictionary. The member named `nestedName` is read as
    /// a `SavedObject` of its own and handed to `nested` instead. nil: not an object, a member that is
    /// not JSON, or a name given twice (as `JSONReader.parse` refuses it).
    package init?(_ reader: inout JSONReader, nestedName: String? = nil, nested: (SavedObject) -> Void = { _ in }) {
        var names: [String] = []
        var values: [JSONValue] = []
        // A profile and its metadata have a score of members or two: room for them, instead of five growths.
        names.reserveCapacity(32)
        values.reserveCapacity(32)
        let read = reader.members { name, reader in
            for known in names where known.utf8.count == name.utf8.count && known == name { return false }
            if name == nestedName {
                guard let object = SavedObject(&reader) else { return false }
                nested(object)
                names.append(name)
                values.append(.null)
                return true
            }
            guard let value = reader.nextValue() else { return false }
            names.append(name)
            values.append(value)
            return true
        }
        guard read else { return nil }
        self.names = names
        self.values = values
    }

    /// The member's value, nil when absent.
    package func value(_ key: String) -> JSONValue? {
        for index in names.indices where names[index].utf8.count == key.utf8.count && names[index] == key { return values[index] }
        return nil
    }

    package func string(_ key: String) throws(SavedProfileError) -> String { try required(optionalString(key)) }

    package func optionalString(_ key: String) throws(SavedProfileError) -> String? { try member(key, \.stringValue) }

    package func optionalNumber(_ key: String) throws(SavedProfileError) -> Double? { try member(key, \.numberValue) }

    package func number(_ key: String) throws(SavedProfileError) -> Double { try required(optionalNumber(key)) }

    /// A number without a fraction, as `Int` decoding requires.
    package func integer(_ key: String) throws(SavedProfileError) -> Int {
        guard let value = Int(exactly: try number(key)) else { throw .damaged }
        return value
    }

    package func bool(_ key: String) throws(SavedProfileError) -> Bool { try required(optionalBool(key)) }

    package func optionalBool(_ key: String) throws(SavedProfileError) -> Bool? { try member(key, \.boolValue) }

    /// The member as `kind` reads it; nil when absent or null, damage when it is of another kind.
    @inline(__always)
    private func member<Value>(_ key: String, _ kind: (JSONValue) -> Value?) throws(SavedProfileError) -> Value? {
        guard let value = value(key), value != .null else { return nil }
        guard let read = kind(value) else { throw .damaged }
        return read
    }

    /// A member that must be there.
    @inline(__always)
    private func required<Value>(_ value: Value?) throws(SavedProfileError) -> Value {
        guard let value else { throw .damaged }
        return value
    }

    package func optionalStrings(_ key: String) throws(SavedProfileError) -> [String]? {
        guard let value = value(key), value != .null else { return nil }
        guard let array = value.arrayValue else { throw .damaged }
        let strings = array.compactMap(\.stringValue)
        guard strings.count == array.count else { throw .damaged }
        return strings
    }

    /// An array of strings that must each pass their gate (`check` nil: refused), such as key pins or git hosts.
    package func optionalArray<Value>(_ key: String, checking check: (String) -> Value?) throws(SavedProfileError) -> [Value]? {
        guard let texts = try optionalStrings(key) else { return nil }
        var values: [Value] = []
        for text in texts {
            guard let value = check(text) else { throw .damaged }
            values.append(value)
        }
        return values
    }

    package func optionalRaw<Value: RawRepresentable>(_ key: String, as type: Value.Type) throws(SavedProfileError) -> Value?
    where Value.RawValue == String {
        guard let text = try optionalString(key) else { return nil }
        guard let value = Value(rawValue: text) else { throw .damaged }
        return value
    }
}

extension ProviderMetadata {
    /// Saved metadata goes through the same gate as a discovery document when it is read back: a
    /// profile.json edited to send tokens elsewhere over http, or to this machine, is refused.
    package init(saved object: SavedObject) throws(SavedProfileError) {
        let issuer = try object.string("issuer")
        let issuerURL: EndpointURL
        do {
            issuerURL = try EndpointPolicy.checkIssuer(issuer)
        } catch {
            throw .refused(field: "issuer", url: issuer, reason: error)
        }
        func endpoint(_ key: CodingKeys) throws(SavedProfileError) -> EndpointURL? {
            guard let text = try object.optionalString(key.rawValue) else { return nil }
            do {
                return try EndpointPolicy.check(text, issuer: issuerURL)
            } catch {
                throw .refused(field: key.rawValue, url: text, reason: error)
            }
        }
        guard let authorizationEndpoint = try endpoint(.authorizationEndpoint), let tokenEndpoint = try endpoint(.tokenEndpoint)
        else { throw .damaged }
        let algorithms = try object.optionalStrings(CodingKeys.idTokenSigningAlgValuesSupported.rawValue)
        let assertionAlgorithms = try object.optionalStrings(CodingKeys.tokenEndpointAuthSigningAlgValuesSupported.rawValue)
        self.init(
            issuer: issuer, authorizationEndpoint: authorizationEndpoint, tokenEndpoint: tokenEndpoint,
            userinfoEndpoint: try endpoint(.userinfoEndpoint), revocationEndpoint: try endpoint(.revocationEndpoint),
            endSessionEndpoint: try endpoint(.endSessionEndpoint), introspectionEndpoint: try endpoint(.introspectionEndpoint),
            jwksURI: try endpoint(.jwksURI), deviceAuthorizationEndpoint: try endpoint(.deviceAuthorizationEndpoint),
            pushedAuthorizationRequestEndpoint: try endpoint(.pushedAuthorizationRequestEndpoint),
            requirePushedAuthorizationRequests: try object.optionalBool(CodingKeys.requirePushedAuthorizationRequests.rawValue),
            codeChallengeMethodsSupported: try object.optionalStrings(CodingKeys.codeChallengeMethodsSupported.rawValue),
            authorizationResponseIssParameterSupported: try object.optionalBool(
                CodingKeys.authorizationResponseIssParameterSupported.rawValue),
            tokenEndpointAuthMethodsSupported: try object.optionalStrings(CodingKeys.tokenEndpointAuthMethodsSupported.rawValue),
            revocationEndpointAuthMethodsSupported: try object.optionalStrings(
                CodingKeys.revocationEndpointAuthMethodsSupported.rawValue))
        idTokenSigningAlgValuesSupported = algorithms
        tokenEndpointAuthSigningAlgValuesSupported = assertionAlgorithms
        grantTypesSupported = try object.optionalStrings(CodingKeys.grantTypesSupported.rawValue)
    }
}

extension Profile {
    /// A profile from the bytes of `profile.json`.
    package init(savedJSON bytes: [UInt8]) throws(SavedProfileError) {
        var reader = JSONReader(reading: bytes)
        var metadataObject: SavedObject? = nil
        guard let object = SavedObject(&reader, nestedName: CodingKeys.metadata.rawValue, nested: { metadataObject = $0 }),
            reader.atEnd(), let metadata = metadataObject
        else { throw .damaged }
        guard let scopes = try object.optionalStrings(CodingKeys.scopes.rawValue) else { throw .damaged }
        /// A port member: absent or null, else a whole number from 0 to 65535.
        func port(_ key: CodingKeys) throws(SavedProfileError) -> UInt16? {
            guard let value = object.value(key.rawValue), value != .null else { return nil }
            guard let number = value.numberValue, let exact = UInt16(exactly: number) else { throw .damaged }
            return exact
        }
        self.init(
            issuer: try object.string(CodingKeys.issuer.rawValue), clientID: try object.string(CodingKeys.clientID.rawValue),
            scopes: scopes, metadata: try ProviderMetadata(saved: metadata),
            caFile: try object.optionalString(CodingKeys.caFile.rawValue),
            tokenEndpointAuthMethod: try object.optionalRaw(CodingKeys.tokenEndpointAuthMethod.rawValue, as: ClientAuthMethod.self),
            revocationEndpointAuthMethod: try object.optionalRaw(
                CodingKeys.revocationEndpointAuthMethod.rawValue, as: ClientAuthMethod.self),
            grantType: try object.optionalRaw(CodingKeys.grantType.rawValue, as: GrantType.self), port: try port(.port),
            logoutPort: try port(.logoutPort),
            gitHosts: try object.optionalArray(CodingKeys.gitHosts.rawValue) { try? GitHost(checking: $0) },
            maxAge: try Self.maxAge(object),
            acrValues: try object.optionalStrings(CodingKeys.acrValues.rawValue),
            subject: try object.optionalString(CodingKeys.subject.rawValue),
            dpop: try object.optionalString(CodingKeys.dpop.rawValue), apiBase: try object.optionalString(CodingKeys.apiBase.rawValue))
        clientCertificateFile = try object.optionalString(CodingKeys.clientCertificateFile.rawValue)
        clientKeyFile = try object.optionalString(CodingKeys.clientKeyFile.rawValue)
        pinnedPublicKeys = try object.optionalArray(CodingKeys.pinnedPublicKeys.rawValue) { try? KeyPin(checking: $0) }
        endpointOverrides = try object.optionalStrings(CodingKeys.endpointOverrides.rawValue)
        discovery = try object.optionalBool(CodingKeys.discovery.rawValue)
        journey = try object.optionalString(CodingKeys.journey.rawValue)
        amCookieName = try object.optionalString(CodingKeys.amCookieName.rawValue)
        authenticateEndpoint = try object.optionalString(CodingKeys.authenticateEndpoint.rawValue)
        otp = try object.optionalString(CodingKeys.otp.rawValue)
        idp = try object.optionalString(CodingKeys.idp.rawValue)
        if let path = try object.optionalString(CodingKeys.clientAssertionKeyFile.rawValue) {
            clientKey = ClientKeyOptions(
                path: path, keyID: try object.optionalString(CodingKeys.clientAssertionKeyID.rawValue),
                audience: try object.optionalRaw(CodingKeys.clientAssertionAudience.rawValue, as: ClientAssertionAudience.self)
                    ?? .endpoint)
        }
    }

    /// `max_age`: absent or null, else a whole number of seconds within what `login --max-age` takes.
    private static func maxAge(_ object: SavedObject) throws(SavedProfileError) -> Int? {
        guard let number = try object.optionalNumber(CodingKeys.maxAge.rawValue) else { return nil }
        guard let seconds = Int(exactly: number), (0...AuthenticationRequirements.maximumMaxAge).contains(seconds) else {
            throw .damaged
        }
        return seconds
    }
}
