@testable import PingBase
@testable import PingOAuth

// Test-only: literals for checked types, so fixtures read as the values they are. Production code
// gets these types only through their gates.
extension AccessToken: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self.init(unchecked: value) }
}

extension RefreshToken: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self.init(unchecked: value) }
}

extension IDToken: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self.init(unchecked: value) }
}

extension EndpointURL: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) {
        // swift-format-ignore: NeverUseForceTry
        self = try! EndpointURL(value)
    }
}
