import PingAM
import PingBase
import PingOAuth
import PingOTP

/// A "no" that means no. Declined terms and conditions and a declined OATH registration end the sign-in
/// without posting the step; a Cancel or No chosen in a confirmation is posted (a tree may branch on it)
/// and, when AM then ends the journey, the sign-in ends in one line: the tree is not started over and
/// AM's "Login failure" is not blamed on the person.
package enum JourneyDecline {
    /// The words that open an option saying no (`Cancel`, `No`, `Skip`, `Not now`, `Decline`, …).
    package static let words: Set<String> = ["cancel", "no", "skip", "not", "decline", "reject", "deny", "abort", "later"]

    /// Whether `option` is a no: its first word, without punctuation, is one of `words`.
    package static func isDecline(_ option: String) -> Bool {
        let text = option.trimmingWhitespace.lowercased()
        let first = text.split(whereSeparator: { !$0.isLetter }).first.map(String.init) ?? ""
        return words.contains(first)
    }

    /// The prompt of a confirmation in `step` that `answers` answer with a no, when there is one.
    package static func declinedPrompt(_ step: JourneyStep, _ answers: [Int: [JSONValue]]) -> String? {
        for callback in step.callbacks {
            guard case .confirmation(let prompt, let options, _) = callback.kind,
                let chosen = answers[callback.position]?.first?.numberValue, chosen >= 0, Int(chosen) < options.count,
                isDecline(options[Int(chosen)])
            else { continue }
            let name = prompt.trimmingWhitespace.isEmpty ? JourneyAnswersFile.confirmationName(options) : prompt
            return callback.displayPrompt(name, fallback: "Choose")
        }
        return nil
    }

    /// The index of `options`' own no (Skip, Cancel, …), for a step that offers one.
    package static func declineOption(_ options: [String]) -> Int? { options.firstIndex(where: isDecline) }

    /// The one line of a sign-in the person ended: what they declined, and that nothing was signed in.
    package static func cancelled(at what: String, _ next: String? = nil) -> PingCLIError {
        .failure("cancelled at \(what): not signed in" + (next.map { "; " + $0 } ?? ""), rule: .journeyCancelled)
    }

    /// The user name typed in `step` (a name prompt that does not ask for a code), offered as the
    /// default when the tree starts over.
    package static func userName(_ step: JourneyStep, _ answers: [Int: [JSONValue]]) -> String? {
        for callback in step.callbacks {
            guard case .name(let prompt) = callback.kind, !JourneyOTP.isCodePrompt(prompt),
                let typed = answers[callback.position]?.first?.stringValue, !typed.isEmpty
            else { continue }
            return typed
        }
        return nil
    }
}

/// Whether the tree may start over after AM refuses a walk: not once the device key's PIN tries are used
/// up, since each new walk would ask for the PIN again and a TPM counts every wrong one towards its
/// dictionary-attack lockout. Shared by the walks' copies of the prompter.
package final class JourneyRestart: @unchecked Sendable {
    /// Why the tree is not started over; nil while it may be.
    private(set) var blocked: String?

    package func block(_ reason: String) { blocked = reason }
}
