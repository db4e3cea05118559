import EmulatorHTTP

/// The emulator's JSON answers: bodies built from `EmulatorJSON`, OAuth 2.0 errors (RFC 6749 §5.2).
extension HTTPResponse {
    static func json(_ value: EmulatorJSON, status: Int = 200, headers: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(
            status: status,
            headers: [("Content-Type", "application/json")] + headers,
            body: Array(value.serialized.utf8))
    }

    static func oauthError(
        _ error: String, _ description: String, status: Int = 400,
        headers: [(String, String)] = []
    ) -> HTTPResponse {
        .json(["error": .string(error), "error_description": .string(description)], status: status, headers: headers)
    }

}
