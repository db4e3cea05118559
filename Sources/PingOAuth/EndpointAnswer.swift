import PingBase

/// The words every endpoint's error type uses for an answer that is not one: an unexpected status, or a
/// body that is not a JSON object. The content type is shown made safe and short.
package enum EndpointAnswer {
    /// `the token endpoint answered HTTP 502 (text/html)`
    package static func status(_ endpoint: String, _ status: Int, contentType: String?) -> String {
        "\(endpoint) answered HTTP \(status)\(contentType.map { " (\(displaySafe($0, limit: 60)))" } ?? "")"
    }

    /// `the token endpoint's answer is not a JSON object (got text/html)`
    package static func notJSON(_ answer: String, contentType: String?) -> String {
        "\(answer) is not a JSON object\(contentType.map { " (got \(displaySafe($0, limit: 60)))" } ?? "")"
    }
}
