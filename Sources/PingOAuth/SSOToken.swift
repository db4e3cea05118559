/// The SSO session a finished journey hands back (`tokenId`): a bearer secret for the whole realm. It
/// travels only as a cookie or in the header named after the cookie, so its gate is the cookie value's
/// grammar ([RFC 6265 §4.1.1](https://www.rfc-editor.org/rfc/rfc6265#section-4.1.1) `cookie-octet`):
/// nothing that could end a header, split a cookie list or act on a terminal. `description` never shows it.
public struct SSOToken: ProviderToken {
    public let value: String
    public init(unchecked value: String) { self.value = value }
    public static let field = "tokenId"
    public static let rule = "AM session token (RFC 6265 cookie-octets)"

    public static func matchesGrammar(_ bytes: [UInt8]) -> Bool {
        bytes.count <= 8192 && bytes.allSatisfy(isCookieOctet)
    }

    /// `%x21 / %x23-2B / %x2D-3A / %x3C-5B / %x5D-7E`: printable ASCII but space, `"`, `,`, `;` and `\`.
    package static func isCookieOctet(_ byte: UInt8) -> Bool {
        (0x21...0x7E).contains(byte) && byte != 0x22 && byte != 0x2C && byte != 0x3B && byte != 0x5C
    }
}
