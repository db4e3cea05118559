/// An `Encoder` whose output is a `JSONValue`, so that the `Encodable` conformances (`Profile`, the
/// refresh record, the token set of older cache formats) are written without Foundation's
/// `JSONEncoder`: linking FoundationEssentials cost every start of pingcli 0.35–0.6 ms
/// (docs/performance.md). `nil` optionals are left out (`encodeIfPresent`), as `JSONEncoder` does.
package enum JSONValueEncoder {
    package static func encode(_ value: some Encodable) throws -> JSONValue {
        let node = Node()
        try value.encode(to: NodeEncoder(node: node, codingPath: []))
        return node.value
    }
}

/// One value under construction; objects and arrays hold their members as nodes until read.
private final class Node {
    enum Content {
        case value(JSONValue)
        case object([String: Node])
        case array([Node])
    }
    var content = Content.value(.null)

    var value: JSONValue {
        switch content {
        case .value(let value): value
        case .object(let members): .object(members.mapValues(\.value))
        case .array(let elements): .array(elements.map(\.value))
        }
    }

    func member(_ key: String) -> Node {
        var members: [String: Node] = [:]
        if case .object(let existing) = content { members = existing }
        let node = members[key] ?? Node()
        members[key] = node
        content = .object(members)
        return node
    }

    func append() -> Node {
        var elements: [Node] = []
        if case .array(let existing) = content { elements = existing }
        let node = Node()
        elements.append(node)
        content = .array(elements)
        return node
    }

    /// The value for a number, string or boolean; anything else is encoded through its own conformance.
    func store(_ value: some Encodable, codingPath: [any CodingKey]) throws {
        switch value {
        case let text as String: content = .value(.string(text))
        case let flag as Bool: content = .value(.bool(flag))
        case let number as Double: content = .value(.number(number))
        case let number as Int: content = .value(.number(Double(number)))
        default: try value.encode(to: NodeEncoder(node: self, codingPath: codingPath))
        }
    }
}

private struct NodeEncoder: Encoder {
    let node: Node
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .value = node.content { node.content = .object([:]) }
        return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .value = node.content { node.content = .array([]) }
        return UnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleContainer(node: node, codingPath: codingPath) }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.member(key.stringValue).content = .value(.null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: String, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try put(Double(value), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try put(Int(value), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try put(Int(value), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try put(Int(value), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try put(Int(value), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try put(Int(value), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try put(Int(value), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try put(Int(value), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try put(Int(value), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try put(Int(value), key) }
    mutating func encode(_ value: some Encodable, forKey key: Key) throws { try put(value, key) }

    private func put(_ value: some Encodable, _ key: Key) throws {
        try node.member(key.stringValue).store(value, codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { NodeEncoder(node: node.member("super"), codingPath: codingPath) }
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer, PrimitivePutting {
    let node: Node
    let codingPath: [any CodingKey]
    var count: Int {
        if case .array(let elements) = node.content { return elements.count }
        return 0
    }

    mutating func encodeNil() throws { node.append().content = .value(.null) }
    mutating func encode(_ value: some Encodable) throws { try put(value) }

    func put(_ value: some Encodable) throws { try node.append().store(value, codingPath: codingPath) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        NodeEncoder(node: node.append(), codingPath: codingPath).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        NodeEncoder(node: node.append(), codingPath: codingPath).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { NodeEncoder(node: node.append(), codingPath: codingPath) }
}

private struct SingleContainer: SingleValueEncodingContainer, PrimitivePutting {
    let node: Node
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.content = .value(.null) }
    mutating func encode(_ value: some Encodable) throws { try put(value) }

    func put(_ value: some Encodable) throws { try node.store(value, codingPath: codingPath) }
}

/// The unkeyed and single-value containers' `encode` for each primitive type: numbers as `Int` or
/// `Double`, everything through `put`.
private protocol PrimitivePutting {
    func put(_ value: some Encodable) throws
}

extension PrimitivePutting {
    package mutating func encode(_ value: Bool) throws { try put(value) }
    package mutating func encode(_ value: String) throws { try put(value) }
    package mutating func encode(_ value: Double) throws { try put(value) }
    package mutating func encode(_ value: Float) throws { try put(Double(value)) }
    package mutating func encode(_ value: Int) throws { try put(value) }
    package mutating func encode(_ value: Int8) throws { try put(Int(value)) }
    package mutating func encode(_ value: Int16) throws { try put(Int(value)) }
    package mutating func encode(_ value: Int32) throws { try put(Int(value)) }
    package mutating func encode(_ value: Int64) throws { try put(Int(value)) }
    package mutating func encode(_ value: UInt) throws { try put(Int(value)) }
    package mutating func encode(_ value: UInt8) throws { try put(Int(value)) }
    package mutating func encode(_ value: UInt16) throws { try put(Int(value)) }
    package mutating func encode(_ value: UInt32) throws { try put(Int(value)) }
    package mutating func encode(_ value: UInt64) throws { try put(Int(value)) }
}
