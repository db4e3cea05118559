import PingBase

/// A command's operations (`otp add`, `devices remove`, `setup git`, `aws env`) as typed cases: the
/// operand is parsed once into a case, each command switches over its cases exhaustively, and the
/// completions and the man page list the same cases. A new operation is a new case; a switch that
/// forgets it does not compile.
package protocol CommandOperation: RawRepresentable, CaseIterable, Sendable where RawValue == String {
    /// The usage error for `operand` when it names none of the cases (nil: no operand was given).
    static func unknown(_ operand: String?) -> PingCLIError
}

extension CommandOperation {
    /// The names in the order the cases are declared: what the completions offer and help lists.
    package static var names: [String] { allCases.map(\.rawValue) }

    /// The case `operand` names, else the command's usage error (`unknown`).
    package static func named(_ operand: String?) throws(PingCLIError) -> Self {
        guard let operand, let operation = Self(rawValue: operand) else { throw unknown(operand) }
        return operation
    }

    /// "unknown otp operation "X": use add, code, list or remove (see pingcli otp --help)": the usual
    /// wording of an operand that names no operation, for `command` (as typed) and its names.
    package static func unknownOperation(_ operand: String, command: String) -> PingCLIError {
        .usage(
            "unknown \(command) operation \"\(displaySafe(operand, limit: 40))\": use \(spelledOut) (see pingcli \(command) --help)",
            rule: .commandOperand)
    }

    /// The names as a sentence lists them: "add, code, list or remove".
    package static var spelledOut: String {
        let names = names
        guard let last = names.last, names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " or " + last
    }
}
