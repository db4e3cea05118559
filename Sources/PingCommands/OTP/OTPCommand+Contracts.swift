import PingBase
import PingFlowCore
import PingJourney
import PingLogin
import PingOAuth
import PingOTP
import PingState

/// What `otp` keeps in common with the older commands: a name may be shortened to a unique prefix, a
/// deletion asks `[y/N]` on a terminal (`--yes` for scripts), and the list is an aligned table on a
/// terminal (tab-separated for programs).
extension OTPCommand {
    /// `otp code NAME`: the account named exactly, else the one whose name starts with `typed`; a prefix of
    /// several names is refused with the names it matches.
    /// `origin` (`--origin`): the AM whose account it is, when accounts of several AMs share the name.
    package static func code(_ typed: String, origin: String?, accounts: OTPAccounts) throws(PingCLIError) -> OTPAccounts.Code {
        do {
            return try accounts.code(typed, origin: origin)
        } catch {
            guard error.rule == .otpNoAccount else { throw error }
            let names = try accounts.list().filter { origin == nil || $0.origin == origin }.map(\.name)
            let chosen = try account(typed, among: Array(Set(names)).sorted())
            guard chosen != typed else { throw error }
            return try accounts.code(chosen, origin: origin)
        }
    }

    /// The account `typed` stands for: itself when an account has that name (or none starts with it), the
    /// one that starts with it, or a usage error naming every account that does.
    package static func account(_ typed: String, among names: [String]) throws(PingCLIError) -> String {
        guard !typed.isEmpty, !names.contains(typed) else { return typed }
        let matches = names.filter { $0.startsWithText(typed) }
        guard matches.count > 1 else { return matches.first ?? typed }
        let listed = matches.prefix(10).map { "\"\(displaySafe($0, limit: 80))\"" }.joined(separator: ", ")
        throw .usage(
            "\"\(displaySafe(typed, limit: 80))\" starts \(matches.count) OTP account names (\(listed)\(matches.count > 10 ? ", …" : "")): give more of the name",
            rule: .otpNameAmbiguous)
    }

    /// `otp remove NAME`: the account must exist (nothing is asked about one that does not), and on a
    /// terminal the person says `y`; without a terminal only `--yes` removes it.
    package static func remove(
        _ name: String, origin: String?, yes: Bool, accounts: OTPAccounts, context: CommandContext
    ) throws(PingCLIError) {
        let all = try accounts.list()
        let names = all.map(\.name)
        guard names.contains(name) else { throw accounts.missing(name, among: names) }
        // Which of several AMs' accounts of that name, before anyone is asked (one line, nothing removed).
        _ = try OTPAccountScope.find(name, origin: origin, in: all)
        let shown = displaySafe(name, limit: 80)
        if !yes {
            guard context.inputIsTerminal, context.console.errorIsTerminal else {
                throw .usage(
                    "pingcli otp remove asks before it deletes \"\(shown)\" and there is no terminal to ask on: give --yes to remove it",
                    rule: .otpRemoveUnconfirmed)
            }
            context.console.writeErr("Remove the OTP account \"\(shown)\"? Its codes cannot be made again without its QR code. [y/N] ")
            guard ["y", "yes"].contains(LoginCommand.readAnswer(context.input).lowercased()) else {
                throw .usage("kept the OTP account \"\(shown)\": nothing was removed", rule: .otpRemoveDeclined)
            }
        }
        try accounts.remove(name, origin: origin)
        context.console.err("Removed the OTP account \"\(shown)\" from this machine.")
    }

    /// `otp list` without `--json`: on a terminal an aligned table under a header; otherwise one account a
    /// line, tab-separated, for `cut` and `awk` (as `profiles` does).
    package static func listLines(_ accounts: [OTPAccount], terminal: Bool) -> [String] {
        let rows = accounts.map { account in
            [
                displaySafe(account.name), account.kind.rawValue, account.algorithm.rawValue,
                terminal ? "\(account.digits)" : "\(account.digits) digits",
                account.kind == .totp ? "\(account.period)s" : "counter \(account.counter)",
                account.origin.map { displaySafe($0) } ?? "",
            ]
        }
        guard terminal else { return rows.map { ($0.last == "" ? $0.dropLast() : $0[...]).joined(separator: "\t") } }
        let table = [["NAME", "TYPE", "ALGORITHM", "DIGITS", "EVERY", accounts.contains { $0.origin != nil } ? "AM" : ""]] + rows
        let widths = (0..<table[0].count).map { column in table.map { $0[column].count }.max() ?? 0 }
        return table.map { row in
            row.enumerated().map { $1 + String(repeating: " ", count: widths[$0] - $1.count) }.joined(separator: "  ").trimmingWhitespace
        }
    }
}
