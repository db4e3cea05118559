/// Why a value was refused at its gate, in words that never quote the value.
public protocol GateFailure: Error {
    var message: String { get }
}

/// A string that passed its gate. Stored as the bare string; a stored copy (the token cache) is read
/// back through the same gate it entered by, so a file cannot smuggle past it.
public protocol CheckedString: Codable {
    associatedtype Failure: GateFailure
    var value: String { get }
    init(checking text: String) throws(Failure)
}

extension CheckedString {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            try self.init(checking: text)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.message))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}
