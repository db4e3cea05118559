import PingCrypto
import PingWebAuthn

/// The PIN part of a ceremony (CTAP2 §6.5 clientPIN, done by libfido2): ask, try, ask again after a wrong
/// PIN while the key has tries to spare.
///
/// A key allows 8 wrong PINs in all before it blocks for good (only a reset, which erases every
/// credential on it, brings it back), and 3 in a row before it wants to be unplugged and plugged in again.
/// pingcli never spends the last try: with 1 left it stops before asking (`pinBlocked`: a PIN typed
/// right elsewhere, in the vendor's tool or a browser, sets the count back to 8). Three wrong in a row
/// come back from the key as `pinAuthBlocked`. A PIN under 4 bytes or over 63 (CTAP2's bounds), or
/// holding a NUL, is not sent: it cannot be right and would spend a try; it counts towards the three.
struct SecurityKeyPIN {
    let device: FIDODevice
    let interaction: any AuthenticatorInteraction
    /// CTAP2's retry count when nothing went wrong before.
    static let fullRetries = 8
    static let attemptsPerCeremony = 3

    /// Runs `body` with the PIN when `verification` is `.pin` (nil otherwise), after the touch prompt.
    func run<T>(
        _ verification: SecurityKey.Verification, touched: Bool = false, _ body: ([UInt8]?) throws(FIDOStatus) -> T
    ) throws(AuthenticatorFailure) -> T {
        guard verification == .pin else {
            interaction.touchRequested()
            do {
                return try body(nil)
            } catch  where error == .pinRequired && verification == .none {
                // A CTAP 2.0 key with a PIN set wants it for every registration, whatever the step asked.
                return try run(.pin, touched: true, body)
            } catch {
                throw error.failure
            }
        }
        var retries = try SecurityKey.mapped { () throws(FIDOStatus) in try device.pinRetries() }
        guard retries > 1 else { throw .pinBlocked }
        var shown: Int? = retries < Self.fullRetries ? retries : nil
        var touchShown = touched
        for _ in 0..<Self.attemptsPerCeremony {
            guard var pin = interaction.pin(retries: shown, confirm: false) else { throw .notAllowed }
            defer { Sodium.wipe(&pin) }
            guard Self.plausible(pin) else {
                shown = retries
                continue
            }
            if !touchShown {
                interaction.touchRequested()
                touchShown = true
            }
            do {
                return try body(pin)
            } catch  where error == .pinInvalid {
                retries = try SecurityKey.mapped { () throws(FIDOStatus) in try device.pinRetries() }
                guard retries > 1 else { throw .pinBlocked }
                shown = retries
            } catch {
                throw error.failure
            }
        }
        throw .wrongPIN(retries: shown)
    }

    /// CTAP2's PIN bounds: at least 4 bytes (4 code points in 2.1), at most 63, no NUL.
    static func plausible(_ pin: [UInt8]) -> Bool {
        (4...63).contains(pin.count) && !pin.contains(0)
    }
}
