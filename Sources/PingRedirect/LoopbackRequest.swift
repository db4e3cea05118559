import PingBase

/// The request line and headers of one HTTP/1.1 request to the loopback listener, parsed without
/// trusting anything in it. Bodies are read only for a small form POST (a provider's `form_post`
/// answer, OAuth 2.0 Form Post Response Mode); the authorization redirect is a GET.
public struct LoopbackRequest: Sendable, Equatable {
    public var method: String
    /// The path, still percent-encoded, without the query.
    public var path: String
    /// The raw query (after `?`), still encoded; nil when there is none.
    public var query: String?
    /// The body of a `POST` declared `application/x-www-form-urlencoded` (at most `maximumFormBytes`),
    /// still encoded; nil for any other request.
    public var formBody: String? = nil
    /// Where the request came from, for `peer()`: nil for a pasted address.
    public var connection: PeerCredentials.Connection? = nil

    /// Who owns the connecting socket, as the kernel's table says (see `PeerCredentials`); `unknown` for
    /// a pasted address or when the table cannot be read. Looked up on demand: the table has a line per
    /// socket on the machine, and only the requests that could act (the right path and `state`) need it.
    public func peer() -> PeerIdentity {
        guard let connection else { return .unknown }
        return PeerCredentials.identity(of: connection)
    }

    /// Largest request head (request line plus headers) read before answering 431.
    public static let maximumHeadBytes = 8 * 1024
    /// Largest form body read; a larger one is answered 413.
    public static let maximumFormBytes = 16 * 1024

    public enum ParseResult: Sendable, Equatable {
        /// More bytes are needed.
        case incomplete
        /// The head is complete and well-formed.
        case complete(LoopbackRequest)
        /// The bytes are not an acceptable request; answer with this status and close.
        case invalid(status: Int, reason: String)
    }

    /// Parses what has arrived so far. Only the origin form (`/path?query`) is accepted (RFC 9112 §3.2.1);
    /// the absolute and authority forms are proxies' business, not a redirect's.
    public static func parse(_ bytes: [UInt8]) -> ParseResult {
        guard let headEnd = findHeadEnd(bytes) else {
            if bytes.count > maximumHeadBytes { return .invalid(status: 431, reason: "request header too large") }
            if let firstByte = bytes.first, !(UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(firstByte) {
                return .invalid(status: 400, reason: "not an HTTP request")
            }
            return .incomplete
        }
        if headEnd > maximumHeadBytes { return .invalid(status: 431, reason: "request header too large") }
        guard let lineEnd = bytes.firstIndex(of: UInt8(ascii: "\r")), lineEnd < headEnd else {
            return .invalid(status: 400, reason: "malformed request line")
        }
        let parts = bytes[..<lineEnd].split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }),
            let method = String(validating: parts[0], as: UTF8.self),
            let target = String(validating: parts[1], as: UTF8.self),
            let version = String(validating: parts[2], as: UTF8.self),
            version == "HTTP/1.1" || version == "HTTP/1.0",
            method.utf8.allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) })
        else { return .invalid(status: 400, reason: "malformed request line") }
        guard target.hasPrefix("/"),
            target.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else { return .invalid(status: 400, reason: "unsupported request target") }
        let pieces = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(pieces[0])
        let query = pieces.count > 1 ? String(pieces[1]) : nil
        var request = LoopbackRequest(method: method, path: path, query: query.map { String($0.split(separator: "#").first ?? "") })
        guard method == "POST", let form = formLength(bytes[lineEnd..<headEnd]) else { return .complete(request) }
        guard form <= maximumFormBytes else { return .invalid(status: 413, reason: "form body too large") }
        guard bytes.count >= headEnd + form else { return .incomplete }
        guard let body = String(validating: bytes[headEnd..<(headEnd + form)], as: UTF8.self) else {
            return .invalid(status: 400, reason: "form body is not UTF-8")
        }
        request.formBody = body
        return .complete(request)
    }

    /// The `Content-Length` of a head declaring `Content-Type: application/x-www-form-urlencoded`; nil
    /// for another type or without a length.
    private static func formLength(_ head: ArraySlice<UInt8>) -> Int? {
        var (isForm, length): (Bool, Int?) = (false, nil)
        for line in String(decoding: head, as: UTF8.self).split(separator: "\r\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let value = parts[1].trimmingWhitespace.lowercased()
            switch parts[0].trimmingWhitespace.lowercased() {
            case "content-type":
                isForm = value.split(separator: ";").first.map { $0.trimmingWhitespace } == "application/x-www-form-urlencoded"
            case "content-length": length = value.utf8.count <= 9 && value.utf8.allSatisfy(\.isASCIIDigit) ? Int(value) : nil
            default: continue
            }
        }
        return isForm ? length : nil
    }

    /// Index just past `\r\n\r\n`, or nil.
    package static func findHeadEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        var index = 3
        while index < bytes.count {
            if bytes[index] == 10 && bytes[index - 1] == 13 && bytes[index - 2] == 10 && bytes[index - 3] == 13 {
                return index + 1
            }
            index += 1
        }
        return nil
    }
}
