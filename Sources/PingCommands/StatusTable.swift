import PingBase
import PingFlows

/// `status --all`: one line per profile, as `gcloud auth list` shows accounts, with the key store said
/// once below; the details stay with `status --profile NAME`.
enum StatusTable {
    static func render(_ reports: [ProfileStatus], inEffect: String, now: Double) -> String {
        var rows = [["  PROFILE", "ACCOUNT", "ISSUER", "STATE", "ACCESS TOKEN"]]
        for report in reports {
            let account = report.name ?? report.subject ?? (report.grantName == "client_credentials" ? "(a machine)" : "-")
            let expiry: String
            if let at = report.accessTokenExpiry {
                expiry = at - now >= 0 ? "expires \(describeInterval(at - now))" : "expired \(describeInterval(at - now))"
            } else {
                expiry = report.issuer == nil || report.state == .notLoggedIn ? "-" : "no expiry given"
            }
            rows.append([
                (report.profile == inEffect ? "* " : "  ") + report.profile, displaySafe(account, limit: 40),
                displaySafe(report.issuer ?? "-", limit: 80), ProfilesCommand.state(report), expiry,
            ])
        }
        // Each cell's width counted once, and the text written into one string: a thousand profiles' rows
        // made of joined pieces cost more than reading their summaries.
        let cellWidths = rows.map { row in row.prefix(4).map(Self.width) }
        let widths = (0..<4).map { column in cellWidths.map { $0[column] }.max() ?? 0 }
        var text = ""
        text.reserveCapacity(rows.count * (widths.reduce(8, +) + 24) + 256)
        for (row, cells) in zip(rows, cellWidths) {
            if !text.isEmpty { text += "\n" }
            for column in 0..<4 {
                text += row[column]
                text += Self.spaces(widths[column] - cells[column] + 2)
            }
            text += row[4]
        }
        if let first = reports.first {
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
