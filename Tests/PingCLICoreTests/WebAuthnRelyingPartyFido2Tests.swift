import Foundation
import Testing

@testable import PingJourney
@testable import PingWebAuthn

/// pingcli's RP id rule against an independent one: python3-fido2's `verify_rp_id` (its own copy of the
/// public suffix list), on the same pairs, with pingcli reading Debian's `publicsuffix` list.
@Suite(
    "the RP id rule beside python3-fido2's",
    .enabled(
        if: FileManager.default.fileExists(atPath: JourneyPasskeys.publicSuffixFile)
            && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/fido2/rpid.py"),
        "needs publicsuffix and python3-fido2 (make deps)"))
struct WebAuthnRelyingPartyFido2Tests {
    @Test("webauthn-rp-id-fido2: pingcli and python3-fido2 agree on which RP ids an https origin may use")
    func agree() throws {
        let pairs = [
            ("example.co.uk", "login.example.co.uk"), ("co.uk", "login.example.co.uk"), ("uk", "login.example.co.uk"),
            ("example.com", "login.example.com"), ("com", "login.example.com"), ("github.io", "a.github.io"),
            ("a.github.io", "a.github.io"), ("other.com", "login.example.com"), ("xample.com", "login.example.com"),
            ("login.example.com", "login.example.com"), ("openam-docs.forgeblocks.com", "openam-docs.forgeblocks.com"),
            ("blogspot.com", "x.blogspot.com"), ("amazonaws.com", "a.b.amazonaws.com"),
        ]
        let suffixes = try #require(JourneyPasskeys.installedSuffixes())
        // Where the lists differ: Debian's newer list names Advanced Identity Cloud's forgeblocks.com a public
        // suffix (python3-fido2's bundled copy predates it), so a tenant's passkeys belong to its own host.
        #expect(suffixes.isPublicSuffix("forgeblocks.com"))
        #expect((try? RelyingPartyRule.check(rpID: "forgeblocks.com", host: "openam-docs.forgeblocks.com", suffixes: suffixes)) == nil)
        let script =
            "import sys\nfrom fido2.rpid import verify_rp_id\nfor a in sys.argv[1:]:\n  r, h = a.split(' ')\n  print(verify_rp_id(r, 'https://' + h))"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script] + pairs.map { "\($0.0) \($0.1)" }
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let theirs = output.split(separator: "\n").map { $0 == "True" }
        #expect(theirs.count == pairs.count, "\(output)")
        for (index, (rp, host)) in pairs.enumerated() where index < theirs.count {
            let ours = (try? RelyingPartyRule.check(rpID: rp, host: host, suffixes: suffixes)) != nil
            #expect(ours == theirs[index], "\(rp) for https://\(host): pingcli \(ours), python3-fido2 \(theirs[index])")
        }
    }
}
