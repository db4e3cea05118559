import Foundation

/// A command line the `ping-emulator` executable refuses: the one line it prints (exit 2).
public struct EmulatorUsageError: Error, Equatable, Sendable {
    public let message: String
}

/// The `ping-emulator` executable's command line read as pingcli reads its own: argv -> options (each a
/// case of `EmulatorOption`, checked by its own rule) -> the configuration the emulator runs with. Pure:
/// the files an option names are read here, nothing is started.
public struct EmulatorCommandLine {
    public enum Parsed {
        case run(EmulatorCommandLine)
        case help
    }

    public var configuration = EmulatorConfiguration()
    /// `--ready-file PATH`: where the issuer is written once the emulator listens.
    public var readyFile: String?

    var clientIDs: [String] = []
    var clientSecret: String?
    var postLogoutURIs: [String] = []
    var resources: [CustomResource] = []
    var tlsFiles: (certificate: String?, key: String?, clientCA: String?) = (nil, nil, nil)
    var mutualTLSClients: [RegisteredClient] = []
    var treeFile: JourneyTreeFile?
    var totpSecrets: [(String, String)] = []
    var impliedConsent = true

    /// Reads `arguments` (without the program's name).
    public static func parse(_ arguments: [String]) throws(EmulatorUsageError) -> Parsed {
        var line = EmulatorCommandLine()
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            guard let option = EmulatorOption(rawValue: argument == "-h" ? "--help" : argument) else {
                throw EmulatorUsageError(message: "unknown argument \(argument)")
            }
            if option == .help { return .help }
            if let (setting, value) = EmulatorOption.switches[option] {
                line.configuration[keyPath: setting] = value
                continue
            }
            if option == .noImpliedConsent {
                line.impliedConsent = false
                continue
            }
            guard let value = rest.popFirst() else { throw EmulatorUsageError(message: "\(argument) needs a value") }
            try line.apply(option, value)
        }
        try line.finish()
        return .run(line)
    }

    mutating func apply(_ option: EmulatorOption, _ value: String) throws(EmulatorUsageError) {
        switch option.section {
        case .general: try applyGeneral(option, value)
        case .administrator: try applyAdministrator(option, value)
        case .tls: try applyTLS(option, value)
        case .journeys: try applyJourney(option, value)
        case .process: readyFile = value
        }
    }

    /// What the options say together: the clients with their secret, consent and sign-off URIs, the
    /// resources, the trees and their users' secrets, the TLS files.
    mutating func finish() throws(EmulatorUsageError) {
        if !clientIDs.isEmpty { configuration.clients = clientIDs.map { RegisteredClient(clientID: $0) } }
        if let treeFile { configuration.addJourneys(treeFile) }
        for (username, secret) in totpSecrets {
            guard let index = configuration.users.firstIndex(where: { $0.username == username }) else {
                throw EmulatorUsageError(message: "--totp-secret: no user \(username)")
            }
            configuration.users[index].totpSecret = secret
        }
        for index in configuration.clients.indices {
            configuration.clients[index].impliedConsent = impliedConsent
            configuration.clients[index].clientSecret = clientSecret
            if !postLogoutURIs.isEmpty { configuration.clients[index].postLogoutRedirectURIs = postLogoutURIs }
        }
        if !resources.isEmpty { configuration.resources = resources }
        configuration.clients += mutualTLSClients
        switch (tlsFiles.certificate, tlsFiles.key) {
        case (let certificate?, let key?):
            configuration.tls = EmulatorTLS(certificateFile: certificate, keyFile: key, clientCAFile: tlsFiles.clientCA)
        case (nil, nil): break
        default: throw EmulatorUsageError(message: "--tls-cert and --tls-key go together")
        }
    }
}

/// The checks options share.
extension EmulatorCommandLine {
    static func usage(_ option: EmulatorOption, _ problem: String) -> EmulatorUsageError {
        EmulatorUsageError(message: "\(option.rawValue) \(problem)")
    }

    /// A whole number of at least `minimum` (and at most `maximum`).
    static func number(
        _ option: EmulatorOption, _ text: String, from minimum: Int, to maximum: Int = .max
    ) throws(EmulatorUsageError)
        -> Int
    {
        guard let value = Int(text), (minimum...maximum).contains(value) else {
            throw usage(option, maximum == .max ? "needs a number of at least \(minimum)" : "needs \(minimum)-\(maximum)")
        }
        return value
    }

    /// One of `cases`, by its raw value.
    static func choice<T: RawRepresentable>(
        _ option: EmulatorOption, _ text: String, _ type: T.Type, _ names: String
    )
        throws(EmulatorUsageError) -> T where T.RawValue == String
    {
        guard let value = T(rawValue: text) else { throw usage(option, "must be \(names)") }
        return value
    }

    /// A value that becomes one segment of the issuer's path: not empty, no `/`.
    static func pathSegment(_ option: EmulatorOption, _ text: String) throws(EmulatorUsageError) -> String {
        guard !text.isEmpty, !text.contains("/") else { throw usage(option, "must be a non-empty path segment") }
        return text
    }

    /// `ID=VALUE` of a repeatable client option.
    static func idAndValue(_ option: EmulatorOption, _ text: String) throws(EmulatorUsageError) -> (String, String) {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else { throw usage(option, "needs ID=VALUE") }
        return (String(text[..<equals]), String(text[text.index(after: equals)...]))
    }
}
