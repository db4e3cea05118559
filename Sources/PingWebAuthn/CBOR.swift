/// CBOR ([RFC 8949](https://www.rfc-editor.org/rfc/rfc8949)) as WebAuthn and CTAP2 use it: the data items an
/// attestation object, authenticator data's COSE key and a CTAP2 message are made of. Encoding is CTAP2's
/// canonical form (RFC 8949 §4.2.1 preferred serialisation, definite lengths, map keys sorted by their encoded
/// bytes, shorter first: CTAP2 §8 "CTAP2 canonical CBOR encoding form"). Decoding reads any well-formed item
/// within the bounds of `CBOR.Limits`, including indefinite lengths, and refuses the rest.
public indirect enum CBOR: Sendable, Equatable {
    /// Major type 0.
    case unsigned(UInt64)
    /// Major type 1: the value is `-1 - n`.
    case negative(UInt64)
    /// Major type 2.
    case bytes([UInt8])
    /// Major type 3 (valid UTF-8).
    case text(String)
    /// Major type 4.
    case array([CBOR])
    /// Major type 5, in the order written (encoding sorts).
    case map([CBORPair])
    /// Major type 6.
    case tagged(UInt64, CBOR)
    /// Simple values 20–23 (and other simple values).
    case bool(Bool)
    case null
    case undefined
    case simple(UInt8)
    /// Major type 7 floats (half, single and double are all read into a Double; written as a double).
    case float(Double)

    /// An integer as either major type 0 or 1.
    public static func int(_ value: Int64) -> CBOR {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-(value + 1)))
    }

    /// The integer value of a major type 0 or 1 item that fits an Int64.
    public var intValue: Int64? {
        switch self {
        case .unsigned(let value): value <= UInt64(Int64.max) ? Int64(value) : nil
        case .negative(let value): value <= UInt64(Int64.max) ? -1 - Int64(value) : nil
        default: nil
        }
    }

    public var bytesValue: [UInt8]? {
        if case .bytes(let value) = self { value } else { nil }
    }

    public var textValue: String? {
        if case .text(let value) = self { value } else { nil }
    }

    public var arrayValue: [CBOR]? {
        if case .array(let value) = self { value } else { nil }
    }

    public var mapValue: [CBORPair]? {
        if case .map(let value) = self { value } else { nil }
    }

    /// The value of the first pair whose key equals `key` in a map; nil for other items.
    public subscript(key: CBOR) -> CBOR? {
        mapValue?.first { $0.key == key }?.value
    }

    public subscript(key: String) -> CBOR? { self[.text(key)] }

    public subscript(intKey key: Int64) -> CBOR? { self[.int(key)] }
}

/// One entry of a CBOR map.
public struct CBORPair: Sendable, Equatable {
    public var key: CBOR
    public var value: CBOR

    public init(_ key: CBOR, _ value: CBOR) {
        self.key = key
        self.value = value
    }
}

extension CBOR {
    /// A map with text keys, in the order given (encoding sorts them canonically).
    public static func map(_ pairs: KeyValuePairs<String, CBOR>) -> CBOR {
        .map(pairs.map { CBORPair(.text($0.key), $0.value) })
    }

    /// A map with integer keys (COSE, CTAP2 parameters), in the order given.
    public static func map(_ pairs: KeyValuePairs<Int64, CBOR>) -> CBOR {
        .map(pairs.map { CBORPair(.int($0.key), $0.value) })
    }
}
