/// "Did you mean": the known name closest to a mistyped one, as git and gh suggest.
package enum Suggestions {
    /// The candidate nearest to `input` by edit distance (an adjacent swap counts as one edit), when it is
    /// near enough to be a typo: one edit for names of up to four characters, two for longer ones.
    package static func closest(to input: String, among candidates: [String]) -> String? {
        let typed = Array(input.lowercased().unicodeScalars)
        guard !typed.isEmpty, typed.count <= 64 else { return nil }
        let allowed = typed.count <= 4 ? 1 : 2
        var best: (name: String, distance: Int)? = nil
        for candidate in candidates where candidate != input {
            let distance = editDistance(typed, Array(candidate.lowercased().unicodeScalars))
            if distance <= allowed, distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        return best?.name
    }

    /// ` (did you mean "X"?)` or nothing; `prefix` goes before the suggestion (`--` for options).
    package static func didYouMean(_ input: String, among candidates: [String], prefix: String = "") -> String {
        closest(to: input, among: candidates).map { " (did you mean \(prefix)\($0)?)" } ?? ""
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps.
    package static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { current[j] = min(current[j], before[j - 2] + 1) }
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}
