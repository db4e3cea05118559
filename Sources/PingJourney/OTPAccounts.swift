import PingAuthenticators
import PingBase
import PingCrypto
import PingFlowCore
import PingOTP
import PingState
import PingTerminal

/// What `pingcli otp` does with the store: add, a code, list, remove. Each change runs under the store's
/// lock, from reading the accounts to replacing the file, so an HOTP counter is used once.
package struct OTPAccounts {
    package let store: OTPStore
    package let key: CommandKey
    package let clock: WallClock
    package let holder: String

    package init(store: OTPStore, key: CommandKey, clock: @escaping WallClock, holder: String = "pingcli otp") {
        self.store = store
        self.key = key
        self.clock = clock
        self.holder = holder
    }

    /// One code, and for TOTP the seconds of its validity.
    package struct Code: Sendable, Equatable {
        public var name: String
        public var code: String
        public var kind: OTPAccount.Kind
        /// TOTP: the start and end of the code's period (seconds since the epoch).
        public var validFrom: UInt64?
        public var validUntil: UInt64?
        /// HOTP: the counter this code used.
        public var counter: UInt64?
    }

    /// Stores `account`; an existing account of the same name (and AM origin, `OTPAccountScope`) is
    /// refused unless `replace`.
    package func add(_ account: OTPAccount, replace: Bool) throws(PingCLIError) {
        let secret = try key.get(create: true)
        let lock = try FileAdvice.worded(try store.lock(holder: holder))
        defer { lock.unlock() }
        var accounts = try OTPStoreAdvice.worded(store.readAccounts(key: secret))
        defer { wipe(&accounts) }
        if let index = accounts.firstIndex(where: { OTPAccountScope.clashes($0, account) }) {
            guard replace else {
                throw .failure(
                    "an OTP account named \"\(displaySafe(account.name, limit: 80))\" exists already: choose another with --name, or --replace it",
                    rule: .otpNameTaken)
            }
            accounts[index] = account
        } else {
            accounts.append(account)
        }
        try OTPStoreAdvice.worded(store.writeAccounts(accounts, key: secret))
    }

    /// The names, kinds and settings (never a secret), in the order they were added.
    package func list() throws(PingCLIError) -> [OTPAccount] {
        guard store.exists else { return [] }
        let secret = try key.get()
        var accounts = try OTPStoreAdvice.worded(store.readAccounts(key: secret))
        for index in accounts.indices { Sodium.wipe(&accounts[index].secret) }
        return accounts
    }

    /// Whether storing `account` would replace one (the same name, for the same AM origin).
    package func taken(_ account: OTPAccount) throws(PingCLIError) -> Bool {
        try list().contains { OTPAccountScope.clashes($0, account) }
    }

    /// The current code of `name` (for the AM at `origin`, `OTPAccountScope.find`). HOTP: the stored counter's code, and the counter advanced and saved
    /// before the code is returned, so a crash after it never hands the same code out twice.
    package func code(_ name: String, origin: String? = nil) throws(PingCLIError) -> Code {
        try withAccount(name, origin: origin) { (accounts: inout [OTPAccount], index: Int) throws(PingCLIError) -> (Code, save: Bool) in
            let account = accounts[index]
            switch account.kind {
            case .totp:
                let (code, from, until) = try compute { () throws(LibCrypto.Failure) in
                    try OATH.totp(
                        secret: account.secret, time: clock(), period: account.period, algorithm: account.algorithm, digits: account.digits)
                }
                return (Code(name: name, code: code, kind: .totp, validFrom: from, validUntil: until), false)
            case .hotp:
                let code = try compute { () throws(LibCrypto.Failure) in
                    try OATH.hotp(secret: account.secret, counter: account.counter, algorithm: account.algorithm, digits: account.digits)
                }
                accounts[index].counter = account.counter + 1
                return (Code(name: name, code: code, kind: .hotp, counter: account.counter), true)
            }
        }
    }

    /// Runs `body` with the accounts and the index of `name`'s under the store's lock, and writes the
    /// accounts back when it says so (or to seal them to a TPM now reachable), before the lock is released.
    private func withAccount<Result>(
        _ name: String, origin: String?, _ body: (inout [OTPAccount], Int) throws(PingCLIError) -> (Result, save: Bool)
    ) throws(PingCLIError) -> Result {
        guard store.exists else { throw missing(name, among: []) }
        let secret = try key.get()
        let lock = try FileAdvice.worded(try store.lock(holder: holder))
        defer { lock.unlock() }
        var accounts = try OTPStoreAdvice.worded(store.readAccounts(key: secret))
        defer { wipe(&accounts) }
        guard let index = try OTPAccountScope.find(name, origin: origin, in: accounts) else {
            let elsewhere = origin.flatMap { OTPAccountScope.missing(name, origin: $0, among: accounts) }
            throw elsewhere ?? missing(name, among: accounts.map(\.name))
        }
        let (result, save) = try body(&accounts, index)
        // A store under the cache key alone, with a TPM now reachable, is written back sealed to it.
        var write = save
        if !write {
            do { write = try store.sealPending() } catch { throw error.cliError }
        }
        if write { try OTPStoreAdvice.worded(store.writeAccounts(accounts, key: secret)) }
        return result
    }

    private func compute<Result>(_ body: () throws(LibCrypto.Failure) -> Result) throws(PingCLIError) -> Result {
        do { return try body() } catch {
            throw .failure(
                "cannot compute the code: OpenSSL's libcrypto (libcrypto.so.3) cannot be loaded: install libssl3", rule: .otpLibcrypto)
        }
    }

    /// Deletes `name`'s account (the one of the AM at `origin`, when accounts of several share the name).
    package func remove(_ name: String, origin: String? = nil) throws(PingCLIError) {
        try withAccount(name, origin: origin) { (accounts: inout [OTPAccount], index: Int) throws(PingCLIError) -> ((), save: Bool) in
            accounts.remove(at: index)
            return ((), true)
        }
    }

    package func missing(_ name: String, among names: [String]) -> PingCLIError {
        let hint = Suggestions.didYouMean(name, among: names)
        return .failure(
            "no OTP account named \"\(displaySafe(name, limit: 80))\"\(hint): pingcli otp list shows them, pingcli otp add stores one",
            rule: .otpNoAccount)
    }

    private func wipe(_ accounts: inout [OTPAccount]) {
        for index in accounts.indices { Sodium.wipe(&accounts[index].secret) }
    }
}
