import PingBase
import PingSession
import PingState

/// `status --all`: one line per profile, as `gcloud auth list` shows accounts, with the key store said
/// once below; the details stay with `status --profile NAME`.
package enum StatusTable {
    /// One profile's line: its five cells and the columns the first four take (made on the thread that
    /// read the profile: only the padding is left for the one that writes the table).
    package struct Line: Sendable {
        package let cells: [String]
        package let widths: [Int]

        package init(_ cells: [String]) {
            self.cells = cells
            widths = cells.prefix(4).map(StatusTable.width)
        }
    }

    /// What leaves the thread that read a profile: its line, and the state the exit status follows.
    package struct Row: Sendable {
        package let line: Line
        package let loggedIn: Bool
        /// The profile's files or the key command are broken (exit 1 rather than 4).
        package let broken: Bool
    }

    package static let header = Line(["  PROFILE", "ACCOUNT", "ISSUER", "STATE", "ACCESS TOKEN"])

    package static func line(_ report: ProfileStatus, inEffect: String, now: Double) -> Line {
        let account = report.name ?? report.subject ?? (report.grantName == "client_credentials" ? "(a machine)" : "-")
        let expiry: String
        if let at = report.accessTokenExpiry {
            expiry = at - now >= 0 ? "expires \(describeInterval(at - now))" : "expired \(describeInterval(at - now))"
        } else {
            expiry = report.issuer == nil || report.state == .notLoggedIn ? "-" : "no expiry given"
        }
        return Line([
            (report.profile == inEffect ? "* " : "  ") + report.profile, displaySafe(account, limit: 40),
            displaySafe(report.issuer ?? "-", limit: 80), ProfilesCommand.state(report), expiry,
        ])
    }

    /// The table of `lines` under the header, each column as wide as its widest cell, and the key store
    /// (the same for all) said once below.
    package static func render(_ lines: [Line], keyStore: KeyPlace) -> String {
        let rows = [header] + lines
        let widths = (0..<4).map { column in rows.map { $0.widths[column] }.max() ?? 0 }
        // Written as bytes: String's appends cost more than the reads of a profile's line.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(rows.count * (widths.reduce(8, +) + 24) + 256)
        for row in rows {
            if !bytes.isEmpty { bytes.append(UInt8(ascii: "\n")) }
            for column in 0..<5 {
                var cell = row.cells[column]
                cell.withUTF8 { bytes.append(contentsOf: $0) }
                if column < 4 { bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: widths[column] - row.widths[column] + 2)) }
            }
        }
        var text = String(decoding: bytes, as: UTF8.self)
        text += "\n\nkey store: \(keyStore.kind.rawValue) (\(ProfileStatus.describe(keyStore.kind))), \(keyStore.location)"
        text += "\nDetails, scopes and files: pingcli status --profile NAME"
        return text
    }

    /// The columns a cell takes: its Characters (its bytes, when they are all ASCII).
    package static func width(_ cell: String) -> Int { cell.utf8.allSatisfy { $0 < 0x80 } ? cell.utf8.count : cell.count }

}
