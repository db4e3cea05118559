import PingCrypto
import PingFlowCore
import PingPlatform
import PingSession

/// What a journey takes from the outside world: the session it saves (store, console, clock, network),
/// the browser a social sign-in's redirect goes through, the waits (push approvals, the journey's
/// deadline), and the TPM this machine's device keys and passkeys live in. Built by the commands layer
/// once per command.
public struct JourneyContext {
    public var session: SessionContext
    public var browsing: Browsing
    public var waits: WaitClock
    /// The TPM device keys live in (`TPM2TOOLS_TCTI`, else the system default); `.absent` looks for none.
    package var tpm: TPM2.Access

    package init(session: SessionContext, browsing: Browsing, waits: WaitClock, tpm: TPM2.Access) {
        (self.session, self.browsing, self.waits, self.tpm) = (session, browsing, waits, tpm)
    }
}
