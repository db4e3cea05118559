import PingBase
import PingFlows

/// `status --all`: one line per profile, as `gcloud auth list` shows accounts, with the key store said
/// once below; the details stay with `status --profile NAME`.
enum StatusTable {
    /// One profile's line: its five cells and the columns the first four take (made on the thread that
    /// read the profile: only the padding is left for the one that writes the table).
    struct Line: Sendable {
        let cells: [String]
        let widths: [Int]

        init(_ cells: [String]) {
            self.cells = cells
            widths = cells.prefix(4).map(StatusTable.width)
        }
    }

    static let header = Line(["  PROFILE", "ACCOUNT", "ISSUER", "STATE", "ACCESS TOKEN"])

    static func line(_ report: ProfileStatus, inEffect: String, now: Double) -> Line {
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
    /// (`first`'s, the same for all) said once below.
    static func render(_ lines: [Line], keyStoreOf first: ProfileStatus?) -> String {
        let rows = [header] + lines
        let widths = (0..<4).map { column in rows.map { $0.widths[column] }.max() ?? 0 }
        var text = ""
        text.reserveCapacity(rows.count * (widths.reduce(8, +) + 24) + 256)
        for row in rows {
            if !text.isEmpty { text += "\n" }
            for column in 0..<4 {
                text += row.cells[column]
                text += Self.spaces(widths[column] - row.widths[column] + 2)
            }
            text += row.cells[4]
        }
        if let first {
            text += "\n\nkey store: \(first.keyStore.rawValue) (\(ProfileStatus.describe(first.keyStore))), \(first.keyFile)"
            text += "\nDetails, scopes and files: pingcli status --profile NAME"
        }
        return text
    }

    /// The columns a cell takes: its Characters (its bytes, when they are all ASCII).
    static func width(_ cell: String) -> Int { cell.utf8.allSatisfy { $0 < 0x80 } ? cell.utf8.count : cell.count }

    static let blank = String(repeating: " ", count: 128)

    /// `count` spaces.
    static func spaces(_ count: Int) -> Substring {
        count <= blank.utf8.count ? blank.prefix(count) : Substring(String(repeating: " ", count: count))
    }
}
