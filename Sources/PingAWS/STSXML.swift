import PingBase

/// The one gate for an STS answer's XML: a tiny, strict subset, read by bytes. What AWS sends is a tree
/// of elements with text leaves (`<AssumeRoleWithWebIdentityResponse xmlns="…"><…Result><Credentials>
/// <AccessKeyId>…`); everything else XML allows is refused, so nothing hostile gets a meaning:
///
/// - at most `maximumBytes` bytes, `maximumDepth` levels and `maximumElements` elements, valid UTF-8;
/// - an optional `<?xml …?>` declaration first, then exactly one root element and nothing after it;
/// - no DOCTYPE, comment, CDATA or processing instruction (every `<!` and every later `<?`), so no entity
///   can be declared and none expanded;
/// - only the five predefined entities and numeric character references, none naming a control character;
/// - an element holds either text or elements, never both (whitespace between elements aside).
///
/// The result is each leaf's text by its path of element names (`Root/Child/Leaf`); a path met twice is
/// refused, so a second `AccessKeyId` cannot pick which one is read.
package struct STSXML: Sendable, Equatable {
    package static let maximumBytes = 64 * 1024
    package static let maximumDepth = 8
    package static let maximumElements = 64

    /// Why a body is not the XML this gate reads; the words never quote the body.
    package enum Failure: Error, Sendable, Equatable {
        case tooLarge
        case refused(String)
    }

    /// Leaf texts by their path of element names, `/`-joined, the root's name first.
    package let leaves: [String: String]

    package subscript(_ path: String) -> String? { leaves[path] }

    package init(_ body: [UInt8]) throws(Failure) {
        guard body.count <= Self.maximumBytes else { throw .tooLarge }
        guard String(validating: body, as: UTF8.self) != nil else { throw .refused("it is not UTF-8") }
        var reader = Reader(bytes: body)
        leaves = try reader.document()
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0
        var leaves: [String: String] = [:]
        var elements = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func document() throws(Failure) -> [String: String] {
            // A byte-order mark, then an optional declaration.
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
            skipSpace()
            if starts("<?xml") {
                guard let end = find("?>") else { throw .refused("its XML declaration does not end") }
                index = end + 2
            }
            skipSpace()
            guard peek() == UInt8(ascii: "<") else { throw .refused("it holds no element") }
            try element(path: [])
            skipSpace()
            guard index == bytes.count else { throw .refused("something follows its root element") }
            return leaves
        }

        /// One element at `index` (its `<`), its content and its end tag.
        mutating func element(path: [String]) throws(Failure) {
            elements += 1
            guard elements <= STSXML.maximumElements else { throw .refused("it has more than \(STSXML.maximumElements) elements") }
            guard path.count < STSXML.maximumDepth else { throw .refused("it nests deeper than \(STSXML.maximumDepth) levels") }
            index += 1
            if peek() == UInt8(ascii: "!") || peek() == UInt8(ascii: "?") {
                throw .refused("it holds a DOCTYPE, comment, CDATA section or processing instruction")
            }
            let name = try self.name()
            let empty = try attributes()
            let here = path + [name]
            if empty { return try leaf(here, "") }
            var text: [UInt8] = []
            var children = false
            while true {
                guard let byte = peek() else { throw .refused("element \(name) does not end") }
                if byte == UInt8(ascii: "<") {
                    if bytes.count > index + 1 && bytes[index + 1] == UInt8(ascii: "/") { break }
                    guard text.allSatisfy(Self.isSpace) else { throw .refused("element \(name) mixes text and elements") }
                    text = []
                    children = true
                    try element(path: here)
                } else if byte == UInt8(ascii: "&") {
                    text += try reference()
                } else {
                    guard byte >= 0x20 || Self.isSpace(byte) else { throw .refused("it holds a control character") }
                    text.append(byte)
                    index += 1
                }
            }
            index += 2
            guard try self.name() == name else { throw .refused("element \(name) is closed by another name") }
            skipSpace()
            guard peek() == UInt8(ascii: ">") else { throw .refused("the end tag of \(name) is malformed") }
            index += 1
            if children {
                guard text.allSatisfy(Self.isSpace) else { throw .refused("element \(name) mixes text and elements") }
            } else {
                try leaf(here, String(decoding: text, as: UTF8.self))
            }
        }

        mutating func leaf(_ path: [String], _ text: String) throws(Failure) {
            let key = path.joined(separator: "/")
            guard leaves[key] == nil else { throw .refused("element \(path.last ?? "") appears twice") }
            leaves[key] = text
        }

        /// An element name: a letter or `_`, then letters, digits, `_`, `-`, `.`, `:`; at most 64 bytes.
        mutating func name() throws(Failure) -> String {
            let start = index
            while let byte = peek(), byte.isASCIILetter || byte == UInt8(ascii: "_") || (index > start && Self.isNameByte(byte)) {
                index += 1
            }
            guard index > start, index - start <= 64 else { throw .refused("it has a malformed element name") }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        /// Attributes up to `>` or `/>` (ignored: AWS sends only `xmlns`); true for an empty element.
        mutating func attributes() throws(Failure) -> Bool {
            while true {
                skipSpace()
                guard let byte = peek() else { throw .refused("a start tag does not end") }
                if byte == UInt8(ascii: ">") {
                    index += 1
                    return false
                }
                if byte == UInt8(ascii: "/") {
                    index += 1
                    guard peek() == UInt8(ascii: ">") else { throw .refused("a start tag is malformed") }
                    index += 1
                    return true
                }
                _ = try name()
                skipSpace()
                guard peek() == UInt8(ascii: "=") else { throw .refused("an attribute has no value") }
                index += 1
                skipSpace()
                guard let quote = peek(), quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
                    throw .refused("an attribute value is not quoted")
                }
                index += 1
                while let byte = peek(), byte != quote {
                    guard byte != UInt8(ascii: "<"), byte >= 0x20 else { throw .refused("an attribute value is malformed") }
                    if byte == UInt8(ascii: "&") { _ = try reference() } else { index += 1 }
                }
                guard peek() == quote else { throw .refused("an attribute value does not end") }
                index += 1
            }
        }

        /// `&lt;` `&gt;` `&amp;` `&quot;` `&apos;` or `&#N;` `&#xH;`, as the UTF-8 of what it names.
        mutating func reference() throws(Failure) -> [UInt8] {
            guard let end = bytes[index...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
                throw .refused("it has an entity reference that does not end")
            }
            let body = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
            index = end + 1
            switch body {
            case "lt": return [UInt8(ascii: "<")]
            case "gt": return [UInt8(ascii: ">")]
            case "amp": return [UInt8(ascii: "&")]
            case "quot": return [UInt8(ascii: "\"")]
            case "apos": return [UInt8(ascii: "'")]
            default: break
            }
            var digits = Substring(body)
            guard digits.first == "#" else { throw .refused("it uses an entity other than the five XML predefines") }
            digits = digits.dropFirst()
            let hex = digits.first == "x"
            if hex { digits = digits.dropFirst() }
            guard !digits.isEmpty, let value = UInt32(digits, radix: hex ? 16 : 10), let scalar = Unicode.Scalar(value),
                value >= 0x20 || value == 0x09 || value == 0x0A || value == 0x0D, !(0x7F...0x9F).contains(value)
            else { throw .refused("it has a character reference to no usable character") }
            return Array(String(Character(scalar)).utf8)
        }

        func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

        func starts(_ text: String) -> Bool { bytes[index...].starts(with: text.utf8) }

        func find(_ text: String) -> Int? {
            let needle = Array(text.utf8)
            var at = index
            while at + needle.count <= bytes.count {
                if bytes[at..<(at + needle.count)].elementsEqual(needle) { return at }
                at += 1
            }
            return nil
        }

        mutating func skipSpace() {
            while let byte = peek(), Self.isSpace(byte) { index += 1 }
        }

        static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

        static func isNameByte(_ byte: UInt8) -> Bool {
            byte.isASCIILetter || byte.isASCIIDigit || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
        }
    }
}
