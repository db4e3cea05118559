import PingBase
import PingCrypto

/// The answer to a `DeviceProfileCallback` from a Linux machine: what the risk rules of a tree may
/// match on, and nothing that finds the person. The identifier is a hash of the machine id under a
/// pingcli-specific label (as systemd's application-specific ids are), so it is stable for this machine
/// and cannot be turned back into the machine id or linked with another program's; never a location,
/// even when the callback asks for one.
public struct DeviceProfileAnswer: Sendable, Equatable {
    /// `/etc/os-release`'s `NAME` and `VERSION_ID` (`Debian GNU/Linux`, `12`); empty when unknown.
    public var osName: String
    public var osVersion: String
    /// The machine id (`/etc/machine-id`), used only through `identifier`; nil when unreadable.
    package var machineID: String?

    public init(osName: String, osVersion: String, machineID: String?) {
        self.osName = osName
        self.osVersion = osVersion
        self.machineID = machineID
    }

    /// 64 hexadecimal digits: SHA-256 of a fixed label and the machine id (of the label alone without one).
    public var identifier: String {
        let digest = Sodium.sha256(Array(("pingcli device profile v1\u{0}" + (machineID ?? "")).utf8))
        let digits = Array("0123456789abcdef".unicodeScalars)
        var text = ""
        for byte in digest {
            text.unicodeScalars.append(digits[Int(byte >> 4)])
            text.unicodeScalars.append(digits[Int(byte & 0x0F)])
        }
        return text
    }

    /// The JSON text the callback's input takes: `identifier`, and `metadata.platform` when asked for.
    public func json(metadata: Bool) -> String {
        var object: [String: JSONValue] = ["identifier": .string(identifier)]
        if metadata {
            object["metadata"] = .object([
                "platform": .object([
                    "platform": .string("Linux"), "version": .string(Self.short(osVersion)), "device": .string("pingcli"),
                    "model": .string(Self.short(osName)), "brand": .string("Linux"),
                ]),
                "browser": .object(["userAgent": .string("pingcli/\(PingCLIVersion.current)")]),
            ])
        }
        return JSONValue.object(object).rendered(pretty: false)
    }

    /// A value from os-release, shortened and free of anything that acts on a terminal.
    private static func short(_ text: String) -> String { displaySafe(text, limit: 80) }

    /// `KEY=value` lines of os-release (values optionally quoted), the two keys the profile uses.
    public static func osRelease(_ text: String) -> (name: String, version: String) {
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            var value = parts[1].trimmingWhitespace
            if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                value = String(value.dropFirst().dropLast())
            }
            values[String(parts[0])] = value
        }
        return (values["NAME"] ?? "Linux", values["VERSION_ID"] ?? "")
    }
}
