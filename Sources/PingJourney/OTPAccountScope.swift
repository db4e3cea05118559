import PingBase
import PingOAuth
import PingOTP
import PingTerminal

/// Accounts scoped by the AM they came from: a name is unique per AM origin, so a test tenant's
/// `ForgeRock:ada` never replaces production's. An account without an origin (`otp add`, or one stored
/// before origins were kept) belongs to no AM in particular: it answers a journey at any AM, and it is
/// taken for a registration of the same name at any AM (replacing it is never silent).
package enum OTPAccountScope {
    /// Whether `existing` would be replaced by storing `new`: the same name, and the same origin or
    /// either without one.
    package static func clashes(_ existing: OTPAccount, _ new: OTPAccount) -> Bool {
        existing.name == new.name && (existing.origin == nil || new.origin == nil || existing.origin == new.origin)
    }

    /// The index of the account `name` finds for `origin` (a journey's AM): that origin's, else one
    /// without origin. With no origin (`otp code NAME`): the only account of that name.
    package static func find(_ name: String, origin: String?, in accounts: [OTPAccount]) throws(PingCLIError) -> Int? {
        let named = accounts.indices.filter { accounts[$0].name == name }
        if let origin {
            return named.first { accounts[$0].origin == origin } ?? named.first { accounts[$0].origin == nil }
        }
        guard named.count > 1 else { return named.first }
        let origins = named.map { accounts[$0].origin.map { displaySafe($0, limit: 120) } ?? "none" }.joined(separator: ", ")
        throw .usage(
            "several OTP accounts are named \"\(displaySafe(name, limit: 80))\" (AM origins: \(origins)): give --origin ORIGIN to choose one",
            rule: .otpAccountAmbiguous)
    }

    /// The line for a name with no account for `origin`, naming the other AMs it has one for.
    package static func missing(_ name: String, origin: String, among accounts: [OTPAccount]) -> PingCLIError? {
        let others = accounts.filter { $0.name == name }.compactMap(\.origin)
        guard !others.isEmpty else { return nil }
        return .failure(
            "the OTP account \"\(displaySafe(name, limit: 80))\" belongs to another AM (\(others.map { displaySafe($0, limit: 120) }.joined(separator: ", "))), not \(displaySafe(origin, limit: 120)): register this AM's with --otp-enroll NAME, or give its own account with --otp",
            rule: .otpNoAccount)
    }
}
