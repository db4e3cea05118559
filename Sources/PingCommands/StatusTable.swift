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
        let widths = (0..<4).map { column in rows.map { $0[column].count }.max() ?? 0 }
        var lines = rows.map { row in
            (0..<4).map { row[$0] + String(repeating: " ", count: widths[$0] - row[$0].count + 2) }.joined() + row[4]
        }
        if let first = reports.first {
            lines.append("")
            lines.append("key store: \(first.keyStore.rawValue) (\(ProfileStatus.describe(first.keyStore))), \(first.keyFile)")
            lines.append("Details, scopes and files: pingcli status --profile NAME")
        }
        return lines.joined(separator: "\n")
    }
}
