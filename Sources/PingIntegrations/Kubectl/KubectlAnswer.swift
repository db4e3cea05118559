import PingBase

#if canImport(Glibc)
    import Glibc
#endif

/// The gates for kubectl's JSON answers: `version --client -o json` and `config view -o json`.
package enum KubectlAnswer {
    package struct Refused: Error, Equatable {
        package var reason: String
    }

    package struct User: Equatable, Sendable {
        package var name: String
        package var command: String?
        package var args: [String]
    }

    /// `clientVersion.major` and `.minor` as numbers ("1", "32", or a vendor's "32+").
    package static func clientVersion(_ bytes: [UInt8]) throws(Refused) -> (major: Int, minor: Int) {
        guard let client = JSONValue.parseObject(bytes)?["clientVersion"]?.objectValue else {
            throw Refused(reason: "not a JSON object with clientVersion")
        }
        func number(_ key: String) -> Int? {
            guard let text = client[key]?.stringValue else { return nil }
            let digits = text.hasSuffix("+") ? String(text.dropLast()) : text
            guard (1...4).contains(digits.count), digits.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
            return Int(digits)
        }
        guard let major = number("major"), let minor = number("minor") else {
            throw Refused(reason: "clientVersion has no numeric major and minor")
        }
        return (major, minor)
    }

    /// The `users` of a kubeconfig as `kubectl config view -o json` shows it (null when there are none).
    package static func users(_ bytes: [UInt8]) throws(Refused) -> [User] {
        var users: [User] = []
        for (name, item) in try list(bytes) {
            let exec = item.objectValue?["user"]?.objectValue?["exec"]?.objectValue
            let args = exec?["args"]?.arrayValue ?? []
            guard args.allSatisfy({ $0.stringValue != nil }) else { throw Refused(reason: "exec args that are not strings") }
            users.append(User(name: name, command: exec?["command"]?.stringValue, args: args.compactMap(\.stringValue)))
        }
        return users
    }

    /// The whole entry (`user` and everything beside it) of the user named `name`, as kubectl shows it;
    /// nil when there is none.
    package static func user(named name: String, _ bytes: [UInt8]) throws(Refused) -> JSONValue? {
        try list(bytes).first { $0.name == name }?.item
    }

    /// Each user's name and entry, once the answer is a kubeconfig's and every user has a name.
    private static func list(_ bytes: [UInt8]) throws(Refused) -> [(name: String, item: JSONValue)] {
        guard let config = JSONValue.parseObject(bytes), config["kind"]?.stringValue == "Config" else {
            throw Refused(reason: "not a JSON object of kind Config")
        }
        if config["users"] == nil || config["users"] == .null { return [] }
        guard let list = config["users"]?.arrayValue else { throw Refused(reason: "users is not a list") }
        return try list.map { (item) throws(Refused) in
            guard let name = item.objectValue?["name"]?.stringValue else { throw Refused(reason: "a user without a name") }
            return (name, item)
        }
    }
}
