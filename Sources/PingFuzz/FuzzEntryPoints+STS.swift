import PingAWS
import PingBase
import PingHTTP

extension FuzzEntryPoints {
    /// STS's answer to AssumeRoleWithWebIdentity (the first byte chooses 200, 403 or 400): the XML gate and
    /// the processing behind it. Invariants (a violation traps): credentials that came through are what
    /// the credential_process JSON can print as they are (no quote, backslash or control character), and a
    /// refusal's message is display-safe.
    public static func sts(_ bytes: [UInt8]) {
        let status = [200, 200, 403, 400][Int(bytes.first ?? 0) % 4]
        let response = HTTPResponse(status: status, headers: ["content-type": "text/xml"], body: Array(bytes.dropFirst()))
        do {
            let credentials = try AssumeRoleWithWebIdentity.process(response)
            for field in [credentials.accessKeyID, credentials.secretAccessKey, credentials.sessionToken] {
                precondition(field.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") })
            }
        } catch {
            if case .refused(_, let message, _) = error {
                precondition(!message.unicodeScalars.contains(where: isTerminalActive))
            }
        }
        _ = try? STSXML(Array(bytes.dropFirst()))
    }
}
