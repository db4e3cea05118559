import PingAWS
import PingBase
import PingFlowCore
import PingHTTP
import PingOAuth
import PingPlatform
import PingSession
import PingState

/// AWS credentials from the profile's sign-in: the cached ones while they live more than `reuseMargin`,
/// else the profile's ID token (refreshed first when it is about to expire, by `freshIDToken`) exchanged at
/// STS (`AssumeRoleWithWebIdentity`) and cached, encrypted beside the profile's tokens, bound to the role,
/// the session name and the duration asked for.
///
/// One exchange for many callers: the exchange runs under the profile's lock, and a caller that waited
/// for it reads the cache again first. Throttling and STS's own transient failures are retried with
/// backoff (`retryDelays`), waiting with `sleep`.
package struct AWSCredentialsFlow {
    /// The AWS tools refresh credentials that expire within 15 minutes (botocore's advisory window) and
    /// must have them within 10; pingcli hands out none that live less than 5.
    package static let reuseMargin: Double = 300
    /// The ID token must outlive the request to STS.
    package static let idTokenMinimumTTL: Double = 60
    /// Waits before the second and third attempt when STS throttles or fails transiently.
    package static let retryDelays: [Double] = [1, 3]

    package let profile: ProfileName
    /// The session the ID token comes from, and its cache: store, console, clock, network.
    package let context: SessionContext
    /// Waits between attempts (tests pass one that moves their clock).
    package let sleep: @Sendable (Double) -> Void
    package let role: RoleARN
    /// Nil: the sign-in's person, from the ID token (`sessionName(from:)`).
    package let sessionName: RoleSessionName?
    package let duration: Int?
    package let endpoint: EndpointURL
    /// `AWS_CA_BUNDLE`: the CA certificates to trust for STS instead of the system's.
    package let caFile: String?
    /// The profile's tokens with an ID token that lives `idTokenMinimumTTL` more seconds (signing in first
    /// where the caller may).
    package let freshIDToken: () throws(PingCLIError) -> FreshTokens

    package init(
        profile: ProfileName, context: SessionContext, sleep: @escaping @Sendable (Double) -> Void, role: RoleARN,
        sessionName: RoleSessionName?, duration: Int?, endpoint: EndpointURL, caFile: String?,
        freshIDToken: @escaping () throws(PingCLIError) -> FreshTokens
    ) {
        self.profile = profile
        self.context = context
        self.sleep = sleep
        self.role = role
        self.sessionName = sessionName
        self.duration = duration
        self.endpoint = endpoint
        self.caFile = caFile
        self.freshIDToken = freshIDToken
    }

    /// What was handed out, and whether STS was asked for it.
    package struct Result: Sendable {
        package var credentials: AWSCredentials
        package var fromCache: Bool
    }

    package func credentials() throws(PingCLIError) -> Result {
        let key = context.store.commandKey()
        // A hit needs no fresh ID token: the cached set names the session and the person.
        let provider = TokenProvider(profile: profile, context: context)
        if let (savedProfile, tokens) = try? provider.cached(), let name = sessionName ?? Self.sessionName(from: tokens),
            let hit = try? cachedCredentials(savedProfile, tokens: tokens, name: name, key: key)
        {
            return Result(credentials: hit, fromCache: true)
        }
        let fresh = try freshIDToken()
        guard let idToken = fresh.tokens.idToken?.value else { throw provider.noIDToken() }
        guard let name = sessionName ?? Self.sessionName(from: fresh.tokens) else { throw AWSAdvice.noSessionName(profile) }
        let lock = try provider.lock()
        defer { lock.unlock() }
        // Another caller may have asked STS while this one waited for the lock.
        if let hit = try? cachedCredentials(fresh.profile, tokens: fresh.tokens, name: name, key: key) {
            return Result(credentials: hit, fromCache: true)
        }
        let call = AssumeRoleWithWebIdentity(role: role, sessionName: name, duration: duration)
        let credentials = try exchange(call, idToken: idToken, claims: try? IDTokenClaims.decode(idToken))
        var records =
            (try? context.store.readSide(
                AWSCredentialsFile.self, profile, profile: fresh.profile, session: fresh.tokens.sessionID, key: key)) ?? [:]
        records[AWSCredentialsFile.key(role: role, sessionName: name, duration: duration)] = credentials
        try StoreAdvice.worded(
            context.store.writeSide(
                AWSCredentialsFile.self, records, profile, profile: fresh.profile, session: fresh.tokens.sessionID, key: key,
                now: context.clock()))
        return Result(credentials: credentials, fromCache: false)
    }

    /// The cached credentials for this role, session name and duration, when they live long enough.
    private func cachedCredentials(
        _ saved: Profile, tokens: TokenSet, name: RoleSessionName, key: CommandKey
    ) throws(StoreFailure) -> AWSCredentials? {
        let records = try context.store.readSide(AWSCredentialsFile.self, profile, profile: saved, session: tokens.sessionID, key: key)
        guard let credentials = records[AWSCredentialsFile.key(role: role, sessionName: name, duration: duration)],
            credentials.isFresh(now: context.clock(), margin: Self.reuseMargin)
        else { return nil }
        return credentials
    }

    /// STS's answer, with the retries transient failures earn.
    private func exchange(_ call: AssumeRoleWithWebIdentity, idToken: String, claims: IDTokenClaims?) throws(PingCLIError) -> AWSCredentials
    {
        var options = context.transports.options
        options.clientTLS = ClientTLS()  // the profile's certificate and pins are for its provider, not for AWS
        options.caFile = caFile
        options.maxResponseBytes = STSXML.maximumBytes + 1
        let transport = context.transports.make(options)
        let request = call.request(endpoint: endpoint, idToken: idToken)
        var attempt = 0
        while true {
            let response = try transport.send(request, doing: "getting AWS credentials", endpoint: "AWS STS", url: endpoint.value)
            do {
                return try AssumeRoleWithWebIdentity.process(response)
            } catch  where error.isRetryable && attempt < Self.retryDelays.count {
                sleep(Self.retryDelays[attempt])
                attempt += 1
            } catch {
                throw AWSAdvice.stsError(error, role: role, profile: profile, claims: claims)
            }
        }
    }

    /// The session name for the sign-in's person: `preferred_username`, else `email`, else `name`, else
    /// `sub`, sanitised to STS's characters; nil when none leaves two.
    package static func sessionName(from tokens: TokenSet) -> RoleSessionName? {
        guard let claims = tokens.idToken.flatMap({ try? IDTokenClaims.decode($0.value) }) else { return nil }
        for candidate in [claims.preferredUsername, claims.email, claims.name, claims.subject] {
            if let candidate, let name = RoleSessionName.sanitised(candidate) { return name }
        }
        return nil
    }
}
