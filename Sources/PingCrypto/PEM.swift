/// PEM text (RFC 7468): the base64 between one `-----BEGIN label-----` and its `-----END label-----`.
package enum PEM {
    package enum Failure: Error, Equatable {
        case notPEM
        case encrypted
        case unexpectedLabel(String)
    }

    /// The DER of the first private key in `text`: `PRIVATE KEY` (PKCS#8), `RSA PRIVATE KEY` or
    /// `EC PRIVATE KEY`. An encrypted key is refused (pingcli asks for no passphrase).
    package static func privateKeyDER(_ text: [UInt8]) throws(Failure) -> [UInt8] {
        let lines = text.split(separator: UInt8(ascii: "\n")).map { line in
            Array(line.last == UInt8(ascii: "\r") ? line.dropLast() : line[...])
        }
        let begin = Array("-----BEGIN ".utf8)
        guard let start = lines.firstIndex(where: { $0.starts(with: begin) }) else { throw .notPEM }
        let label = String(decoding: lines[start].dropFirst(begin.count).prefix { $0 != UInt8(ascii: "-") }, as: UTF8.self)
        if label == "ENCRYPTED PRIVATE KEY" || lines.contains(where: { $0.starts(with: Array("Proc-Type: 4,ENCRYPTED".utf8)) }) {
            throw .encrypted
        }
        guard ["PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY"].contains(label) else { throw .unexpectedLabel(label) }
        let end = Array("-----END \(label)-----".utf8)
        guard let stop = lines[(start + 1)...].firstIndex(where: { $0 == end }) else { throw .notPEM }
        var body = lines[(start + 1)..<stop].flatMap { $0 }
        defer { Sodium.wipe(&body) }
        // The standard alphabet (RFC 4648 §4) as base64url, padding dropped, for the one decoder.
        while body.last == UInt8(ascii: "=") { body.removeLast() }
        for index in body.indices {
            if body[index] == UInt8(ascii: "+") { body[index] = UInt8(ascii: "-") }
            if body[index] == UInt8(ascii: "/") { body[index] = UInt8(ascii: "_") }
        }
        guard let der = Base64URL.decode(String(decoding: body, as: UTF8.self)), !der.isEmpty else { throw .notPEM }
        return der
    }
}
