import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension KeyringTests {
    @Test(
        "keyring-front: with the key in the Secret Service, the front answers a cache hit from the kernel keyring's copy as the full binary does; without that copy (another login session, the daemon stopped) it hands the command on and the full binary's one line is the answer"
    )
    func frontReadsTheKernelCopy() throws {
        let (emulator, sandbox, session) = try Self.signedInWithKeyring()
        let layout = try FrontLayout()
        let environment = sandbox.environment.merging(session.environment) { $1 }
        for setting in [[:], ["PINGCLI_KEY_STORE": "keyring"]] {
            let viaFront = runProcess(layout.front, ["token", "--raw"], environment: environment.merging(setting) { $1 }, timeout: 60)
            let full = runProcess(Locations.pingcli, ["token", "--raw"], environment: environment.merging(setting) { $1 }, timeout: 60)
            #expect(viaFront.status == 0 && viaFront.stdout == emulator.newestTokenLine && viaFront.stderr.isEmpty, "\(viaFront)")
            #expect(viaFront.stdout == full.stdout && viaFront.status == full.status, "\(viaFront) \(full)")
            #expect(layout.fellThrough == 0, "the front answered itself (\(setting))")
        }

        // Another login session (no kernel copy) and no daemon: the full binary's refusal, through the front.
        session.stopKeyring()
        SecretServiceSession.joinNewKernelSession()
        let refused = runProcess(layout.front, ["token", "--raw"], environment: environment, timeout: 60)
        let full = runProcess(Locations.pingcli, ["token", "--raw"], environment: environment, timeout: 60)
        #expect(layout.fellThrough == 1, "handed on once")
        #expect(refused.status == 1 && refused.stdout.isEmpty, "\(refused)")
        #expect(refused.stderr == full.stderr && refused.status == full.status, "\(refused) \(full)")
        #expect(refused.stderr.hasPrefix("pingcli: cannot read the cache key from the Secret Service"), "\(refused)")
    }
}
