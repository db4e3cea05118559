import PingBase
import PingFlowCore
import PingState
import PingTerminal

/// What the session's flows take from the outside world (`token`, targeted tokens, refresh, `userinfo`,
/// `api`, `logout`): the store, the console, the wall clock and the network. No browser, no waits, no
/// TPM: a `token --raw` carries nothing it does not use. Built by the commands layer
/// once per command; a sign-in and a journey hold one for the session they save.
public struct SessionContext {
    public var store: TokenStore
    public var console: Console
    public var clock: WallClock
    public var transports: Transports

    public init(store: TokenStore, console: Console, clock: @escaping WallClock, transports: Transports) {
        (self.store, self.console, self.clock, self.transports) = (store, console, clock, transports)
    }
}
