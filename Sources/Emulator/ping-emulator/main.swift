// ping-emulator: runs the PingOne / PingFederate / PingAM emulator on a loopback port (for `make demo`).
import Foundation
import PingEmulator

#if canImport(Glibc)
    import Glibc
#endif

let usage = """
    usage: ping-emulator [options]
      --port N                    listen on 127.0.0.1:N (default 0 = ephemeral)
      --layout pingone|pingfederate|pingam
      --env-id ID                 PingOne environment id
      --client-id ID              registered public client (repeatable; replaces the default)
      --client-secret SECRET      make the --client-id clients confidential with this secret
      --access-token-ttl SECONDS  access token lifetime (default 3600)
      --sign-in approve|form      approve immediately or show a sign-in form (default approve)
      --realm NAME                PingAM realm (layout pingam; default alpha)
      --client-secret-file PATH   the clients are confidential, with the secret in PATH (first line)
      --public-clients-may-not-revoke
                                  revocation refuses public clients (as Glewlwyd and canaille do)
      --device-interval SECONDS   device-flow polling interval advertised (default 5)
      --device-approval           device codes wait for POST /__emulator/device/approve (user_code=)
      --par off|offered|required  pushed authorization requests (default: offered for pingone, as
                                  PingOne lists its PAR endpoint; off for pingfederate and pingam)
      --no-discovery              serve no .well-known/openid-configuration (404), as a gateway
      --device-grant-without-id-token
                                  answer the device grant without an ID token (RFC 8628 defines none)
      --acr VALUE                 the acr every ID token asserts (default: the first acr_values
                                  requested, none when none was)
      --auth-time-age SECONDS     auth_time is this long before the sign-in (an old SSO session)
      --exact-ports               redirect URIs must match exactly, port included
      --post-logout-uri URI       a registered sign-off (post-logout redirect) URI (repeatable; replaces
                                  the defaults; PingOne and PingFederate match them exactly)
    settings an administrator can change (docs/testing.md names the Ping page behind each):
      --signing-alg RS256|PS256|EdDSA
                                  ID and access token signatures (default RS256)
      --access-token-typ JWT|at+jwt
                                  the access tokens' typ header (default JWT; PingOne at+jwt from 2027)
      --iss-in-authorization-response on|off
                                  RFC 9207 iss (default: off for pingfederate, on otherwise)
      --resource AUDIENCE=SCOPE[,SCOPE…]
                                  a PingOne custom resource (repeatable; replaces the default
                                  https://api.example.com=revoke)
      --refresh-token-ttl SECONDS each refresh token's lifetime (PingOne refreshTokenDuration, 2592000)
      --refresh-token-rolling-duration SECONDS|none
                                  a grant's refresh tokens stop working this long after sign-in
                                  (PingOne refreshTokenRollingDuration, default 15552000)
      --refresh-token-grace SECONDS
                                  an exchanged refresh token still works this long, 0-86400
                                  (PingOne refreshTokenRollingGracePeriodDuration, default 0)
      --access-token-revocation   PingFederate: JWT access tokens can be revoked directly
                                  ("Enable Token Revocation" on the access token manager)
      --access-grant-guid-claim   PingFederate: revoking a refresh token also rejects its JWT access
                                  tokens ("Access Grant GUID Claim Name" set)
      --no-pingfederate-cookie    PingFederate: every sign-off asks the person to confirm
    TLS and mutual TLS (RFC 8705; the issuer becomes https, a second port serves mtls_endpoint_aliases):
      --tls-cert PEM --tls-key PEM
                                  the server certificate (chain) and key of both ports
      --tls-client-ca PEM         the CA that issues tls_client_auth certificates
      --tls-client-auth ID=DN     a client that authenticates with tls_client_auth, subject DN (RFC 4514)
                                  (repeatable)
      --self-signed-tls-client-auth ID=PEM
                                  a client that authenticates with this self-signed certificate (repeatable)
      --dpop-algs ALG,…|none      dpop_signing_alg_values_supported (default ES256,PS256,RS256,EdDSA;
                                  none: unannounced)
      --dpop-required             the token endpoint refuses requests without a DPoP proof
      --dpop-nonce                DPoP proofs must carry the server's nonce (DPoP-Nonce)
      --dpop-proof-lifetime SECONDS
                                  how old a proof's iat may be (default 120)
      --no-dpop-replay-prevention a proof's jti may be used again
    PingAM journeys (layout pingam; Sources/Emulator/README.md has the tree file's format):
      --trees FILE                trees (and users' TOTP secrets) read from a JSON file, added to the
                                  built-in Login, Second Factor, Notice, Email Link and Profile Checks
      --cookie-name NAME|random   the session cookie's name /json/serverinfo/* announces (default
                                  iPlanetDirectoryPro; random: 15 hex digits, as Advanced Identity Cloud)
      --short-issuer              the issuer is /am/oauth2/REALM (the alias form) instead of
                                  /am/oauth2/realms/root/realms/REALM; both forms answer either way
      --totp-secret USER=BASE32   USER's TOTP secret (repeatable; demo's is JBSWY3DPEHPK3PXP)
      --push-approve-after N      a push wait approves itself on the Nth poll (default: it waits for
                                  POST /__emulator/journeys/push with decision=approve|deny)
      --auth-id-ttl SECONDS       the authentication session's lifetime (authId; default 300)
      --suspended-ttl SECONDS     how long a suspendedId resumes its journey (default 300)
      --session-ttl SECONDS       the SSO session's lifetime (tokenId; default 7200)
      --no-implied-consent        /authorize with a session shows a consent page; the client must post
                                  csrf and decision=allow
      --ready-file PATH           write the issuer to PATH (atomically) once listening
      --help                      show this help

    """

func usageError(_ message: String) -> Never {
    FileHandle.standardError.write(Data("ping-emulator: \(message) (see --help)\n".utf8))
    exit(2)
}

var configuration = EmulatorConfiguration()
var clientIDs: [String] = []
var clientSecret: String?
var postLogoutURIs: [String] = []
var resources: [CustomResource] = []
var readyFile: String?
var tlsFiles: (certificate: String?, key: String?, clientCA: String?) = (nil, nil, nil)
var mutualTLSClients: [RegisteredClient] = []
var treeFile: JourneyTreeFile?
var totpSecrets: [(String, String)] = []
var impliedConsent = true

/// `ID=VALUE` of a repeatable client flag.
@MainActor func idAndValue(_ flag: String, _ text: String) -> (String, String) {
    guard let equals = text.firstIndex(of: "="), equals != text.startIndex else { usageError("\(flag) needs ID=VALUE") }
    return (String(text[..<equals]), String(text[text.index(after: equals)...]))
}

/// The flags that only turn one setting of the configuration on or off: the setting, and its value.
let switches: [String: (setting: WritableKeyPath<EmulatorConfiguration, Bool>, value: Bool)] = [
    "--public-clients-may-not-revoke": (\.publicClientsMayRevoke, false),
    "--device-approval": (\.deviceRequiresApproval, true),
    "--exact-ports": (\.exactRedirectPorts, true),
    "--no-discovery": (\.servesDiscovery, false),
    "--device-grant-without-id-token": (\.deviceGrantIDToken, false),
    "--access-token-revocation": (\.accessTokenRevocation, true),
    "--access-grant-guid-claim": (\.accessGrantGUIDClaim, true),
    "--no-pingfederate-cookie": (\.pingFederateCookie, false),
    "--dpop-required": (\.dpop.required, true),
    "--dpop-nonce": (\.dpop.nonces, true),
    "--no-dpop-replay-prevention": (\.dpop.replayPrevention, false),
    "--short-issuer": (\.journeys.shortIssuer, true),
]

var arguments = CommandLine.arguments.dropFirst()
@MainActor func value(for flag: String) -> String {
    guard let v = arguments.popFirst() else { usageError("\(flag) needs a value") }
    return v
}
/// The flag's value, which becomes one segment of the issuer's path: not empty, no `/`.
@MainActor func pathSegment(for flag: String) -> String {
    let segment = value(for: flag)
    guard !segment.isEmpty, !segment.contains("/") else { usageError("\(flag) must be a non-empty path segment") }
    return segment
}
while let argument = arguments.popFirst() {
    switch argument {
    case "--help", "-h":
        print(usage, terminator: "")
        exit(0)
    case "--port":
        guard let p = UInt16(value(for: argument)) else { usageError("--port needs a number 0-65535") }
        configuration.port = p
    case "--layout":
        guard let layout = Layout(rawValue: value(for: argument).lowercased()) else {
            usageError("--layout must be pingone, pingfederate or pingam")
        }
        configuration.layout = layout
    case "--env-id":
        configuration.environmentID = pathSegment(for: argument)
    case "--client-id":
        let id = value(for: argument)
        guard !id.isEmpty else { usageError("--client-id must not be empty") }
        clientIDs.append(id)
    case "--client-secret":
        clientSecret = value(for: argument)
    case "--access-token-ttl":
        guard let ttl = Int(value(for: argument)), ttl >= 0 else { usageError("--access-token-ttl needs seconds") }
        configuration.accessTokenLifetime = ttl
    case "--sign-in":
        guard let mode = SignInMode(rawValue: value(for: argument)) else { usageError("--sign-in must be approve or form") }
        configuration.signInMode = mode
    case "--ready-file":
        readyFile = value(for: argument)
    case "--realm":
        configuration.realm = pathSegment(for: argument)
    case "--client-secret-file":
        let path = value(for: argument)
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
            let line = text.split(separator: "\n").first, !line.isEmpty
        else { usageError("--client-secret-file needs a readable file with the secret on its first line") }
        clientSecret = String(line)
    case "--device-interval":
        guard let seconds = Double(value(for: argument)), seconds >= 0 else { usageError("--device-interval needs seconds") }
        configuration.deviceInterval = seconds
    case "--par":
        guard let mode = PushedAuthorizationMode(rawValue: value(for: argument)) else {
            usageError("--par must be off, offered or required")
        }
        configuration.pushedAuthorization = mode
    case "--acr":
        let acr = value(for: argument)
        guard !acr.isEmpty else { usageError("--acr must not be empty") }
        configuration.acr = acr
    case "--auth-time-age":
        guard let seconds = Int(value(for: argument)), seconds >= 0 else { usageError("--auth-time-age needs seconds") }
        configuration.authTimeAge = seconds
    case "--post-logout-uri":
        postLogoutURIs.append(value(for: argument))
    case "--signing-alg":
        guard let algorithm = SigningAlgorithm(rawValue: value(for: argument)) else {
            usageError("--signing-alg must be one of \(SigningAlgorithm.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        configuration.signingAlgorithm = algorithm
    case "--access-token-typ":
        let typ = value(for: argument)
        guard typ == "JWT" || typ == "at+jwt" else { usageError("--access-token-typ must be JWT or at+jwt") }
        configuration.accessTokenType = typ
    case "--iss-in-authorization-response":
        switch value(for: argument) {
        case "on": configuration.authorizationResponseIssuer = true
        case "off": configuration.authorizationResponseIssuer = false
        default: usageError("--iss-in-authorization-response must be on or off")
        }
    case "--resource":
        let text = value(for: argument)
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
            usageError("--resource needs AUDIENCE=SCOPE[,SCOPE…]")
        }
        let scopes = text[text.index(after: equals)...].split(separator: ",").map(String.init)
        guard !scopes.isEmpty else { usageError("--resource needs at least one scope") }
        let audience = String(text[..<equals])
        resources.append(CustomResource(name: audience, audience: audience, scopes: scopes))
    case "--refresh-token-ttl":
        guard let seconds = Int(value(for: argument)), seconds > 0 else { usageError("--refresh-token-ttl needs seconds") }
        configuration.refreshTokenLifetime = seconds
    case "--refresh-token-rolling-duration":
        let text = value(for: argument)
        if text == "none" {
            configuration.refreshTokenRollingDuration = nil
        } else {
            guard let seconds = Int(text), seconds > 0 else { usageError("--refresh-token-rolling-duration needs seconds or none") }
            configuration.refreshTokenRollingDuration = seconds
        }
    case "--refresh-token-grace":
        guard let seconds = Int(value(for: argument)), (0...86400).contains(seconds) else {
            usageError("--refresh-token-grace needs 0-86400 seconds")
        }
        configuration.refreshTokenGracePeriod = seconds
    case "--tls-cert": tlsFiles.certificate = value(for: argument)
    case "--tls-key": tlsFiles.key = value(for: argument)
    case "--tls-client-ca": tlsFiles.clientCA = value(for: argument)
    case "--tls-client-auth":
        let (id, subject) = idAndValue(argument, value(for: argument))
        var client = RegisteredClient(clientID: id, authMethod: "tls_client_auth")
        client.tlsClientAuthSubjectDN = subject
        mutualTLSClients.append(client)
    case "--self-signed-tls-client-auth":
        let (id, path) = idAndValue(argument, value(for: argument))
        let pem = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        let body = pem.components(separatedBy: "\n").filter { !$0.hasPrefix("-----") && !$0.isEmpty }.joined()
        guard let der = Data(base64Encoded: body), !der.isEmpty else { usageError("\(argument): \(path) holds no PEM certificate") }
        var client = RegisteredClient(clientID: id, authMethod: "self_signed_tls_client_auth")
        client.selfSignedCertificateThumbprint = Emulator.thumbprint(ofCertificate: [UInt8](der))
        mutualTLSClients.append(client)
    case "--dpop-algs":
        let text = value(for: argument)
        configuration.dpop.algorithms = text == "none" ? nil : text.split(separator: ",").map(String.init)
    case "--dpop-proof-lifetime":
        guard let seconds = Double(value(for: argument)), seconds > 0 else { usageError("--dpop-proof-lifetime needs seconds") }
        configuration.dpop.proofLifetime = seconds
    case "--trees":
        let path = value(for: argument)
        guard let data = FileManager.default.contents(atPath: path) else { usageError("--trees: cannot read \(path)") }
        do { treeFile = try JourneyTreeFile.load(data) } catch { usageError("--trees: \(path) is not a tree file: \(error)") }
    case "--cookie-name":
        let name = value(for: argument)
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            usageError("--cookie-name needs a token name (letters, digits, - and _) or random")
        }
        configuration.journeys.cookieName = name == "random" ? JourneySettings.randomCookieName() : name
    case "--totp-secret":
        totpSecrets.append(idAndValue(argument, value(for: argument)))
    case "--push-approve-after":
        guard let polls = Int(value(for: argument)), polls > 0 else { usageError("--push-approve-after needs a number of polls") }
        configuration.journeys.pushApproveAfterPolls = polls
    case "--auth-id-ttl", "--suspended-ttl", "--session-ttl":
        guard let seconds = Int(value(for: argument)), seconds > 0 else { usageError("\(argument) needs seconds") }
        switch argument {
        case "--auth-id-ttl": configuration.journeys.authIDLifetime = seconds
        case "--suspended-ttl": configuration.journeys.suspendedLifetime = seconds
        default: configuration.journeys.sessionLifetime = seconds
        }
    case "--no-implied-consent":
        impliedConsent = false
    default:
        guard let (setting, value) = switches[argument] else { usageError("unknown argument \(argument)") }
        configuration[keyPath: setting] = value
    }
}
if !clientIDs.isEmpty {
    configuration.clients = clientIDs.map { RegisteredClient(clientID: $0) }
}
if let treeFile { configuration.addJourneys(treeFile) }
for (username, secret) in totpSecrets {
    guard let index = configuration.users.firstIndex(where: { $0.username == username }) else {
        usageError("--totp-secret: no user \(username)")
    }
    configuration.users[index].totpSecret = secret
}
for i in configuration.clients.indices {
    configuration.clients[i].impliedConsent = impliedConsent
    configuration.clients[i].clientSecret = clientSecret
    if !postLogoutURIs.isEmpty { configuration.clients[i].postLogoutRedirectURIs = postLogoutURIs }
}
if !resources.isEmpty { configuration.resources = resources }
configuration.clients += mutualTLSClients
switch (tlsFiles.certificate, tlsFiles.key) {
case (let certificate?, let key?):
    configuration.tls = EmulatorTLS(certificateFile: certificate, keyFile: key, clientCAFile: tlsFiles.clientCA)
case (nil, nil): break
default: usageError("--tls-cert and --tls-key go together")
}

// One stderr line per request: method, path (no query) and status. Never token or code values.
configuration.onRequest = { record in
    FileHandle.standardError.write(Data("\(record.method) \(record.path) \(record.status)\n".utf8))
}

// Block SIGINT/SIGTERM before any thread exists (threads inherit the mask); the main thread sigwait()s.
// Restore default dispositions first: a shell starts background jobs with SIGINT ignored, and Linux
// discards ignored signals even while they are blocked, so sigwait() would never see them.
signal(SIGINT, SIG_DFL)
signal(SIGTERM, SIG_DFL)
var signals = sigset_t()
sigemptyset(&signals)
sigaddset(&signals, SIGINT)
sigaddset(&signals, SIGTERM)
pthread_sigmask(SIG_BLOCK, &signals, nil)

let emulator: Emulator
do {
    emulator = try Emulator(configuration: configuration)
} catch {
    FileHandle.standardError.write(Data("ping-emulator: \(error)\n".utf8))
    exit(1)
}
emulator.start()
print("issuer: \(emulator.issuer)")
if let mtls = emulator.mtlsBaseURL { print("mutual TLS: \(mtls)") }
if let am = emulator.amBaseURL { print("PingAM: \(am) (session cookie \(configuration.journeys.cookieName))") }
fflush(nil)  // flushes stdout (referencing the `stdout` global is not concurrency-safe)
if let readyFile {
    do {
        try Data((emulator.issuer + "\n").utf8).write(to: URL(fileURLWithPath: readyFile), options: .atomic)
    } catch {
        FileHandle.standardError.write(Data("ping-emulator: cannot write ready file: \(error)\n".utf8))
        emulator.stop()
        exit(1)
    }
}

var received: Int32 = 0
sigwait(&signals, &received)
emulator.stop()
exit(0)
