import PingBase
import PingState

#if canImport(Glibc)
    import Glibc
#endif

/// The gate for git's credential requests: bounded, strictly `key=value` lines, nothing that could
/// become a second line of the answer.
package enum GitCredential {
    /// More than any real request (git sends a handful of short attributes).
    package static let maximumRequestBytes = 64 * 1024

    /// Reads the request from `descriptor` up to its blank line or the end of input, at most 64 KiB.
    package static func readRequest(_ descriptor: Int32) throws(PingCLIError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !bytes.suffix(2).elementsEqual([10, 10]) && !(bytes == [10]) {
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            bytes.append(contentsOf: chunk[..<count])
            guard bytes.count <= maximumRequestBytes else {
                throw .usage(
                    "the git credential request on stdin is longer than 64 KiB: git-credential is meant to be run by git",
                    rule: .gitCredentialGate)
            }
        }
        return bytes
    }

    /// `key=value` lines up to a blank line ([git-credential(1)](https://git-scm.com/docs/git-credential#IOFMT)):
    /// keys are lower-case letters, digits, `_` and a trailing `[]`; values hold no control character.
    /// A key given twice keeps its last value, as git does.
    package static func parse(_ bytes: [UInt8]) throws(PingCLIError) -> [String: String] {
        var attributes: [String: String] = [:]
        let fix = "git-credential is meant to be run by git (see pingcli git-credential --help)"
        for line in bytes.split(separator: 10, omittingEmptySubsequences: false) {
            if line.isEmpty { break }
            guard let equals = line.firstIndex(of: UInt8(ascii: "=")), equals > line.startIndex else {
                throw .usage("a git credential request line is not key=value: \(fix)", rule: .gitCredentialGate)
            }
            let key = line[..<equals]
            let value = line[(equals + 1)...]
            let keyByte: (UInt8) -> Bool = { (97...122).contains($0) || (48...57).contains($0) || $0 == 95 || $0 == 91 || $0 == 93 }
            guard key.count <= 64, key.allSatisfy(keyByte) else {
                throw .usage("a git credential request has a malformed key: \(fix)", rule: .gitCredentialGate)
            }
            guard let text = String(validating: value, as: UTF8.self),
                !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
            else {
                throw .usage(
                    "the git credential request's \(String(decoding: key, as: UTF8.self)) has control characters or is not UTF-8: \(fix)",
                    rule: .gitCredentialGate)
            }
            attributes[String(decoding: key, as: UTF8.self)] = text
        }
        return attributes
    }

    /// Whether the request is for one of the profile's git hosts, over https (http only to this
    /// machine): the token goes nowhere else, and nowhere it could be read on the way.
    package static func serves(_ request: [String: String], profile: Profile) -> Bool {
        (profile.gitHosts ?? []).contains { $0.matches(protocol: request["protocol"], host: request["host"], path: request["path"]) }
    }

    /// A username pingcli sends: printable, one line, at most 256 characters.
    package static func checkedUsername(_ name: String) throws(PingCLIError) -> String {
        guard !name.isEmpty, name.count <= 256, !name.unicodeScalars.contains(where: { isTerminalActive($0) || $0 == "=" }) else {
            throw .usage(
                "the git username must be 1 to 256 printable characters without \"=\": check --username or PINGCLI_GIT_USERNAME",
                rule: .gitUsername)
        }
        return name
    }
}
