#if canImport(Glibc)
    import Glibc
#endif

/// The environment variables a command reads, looked up by name when it asks.
///
/// The live one (`Environment.process`) calls `getenv` for each name a command reads: a cache hit of
/// `token --raw` reads about ten names, and building a dictionary of every variable up front (two
/// strings and a hash each, whatever the shell exports) cost it about 0.07 M instructions
/// (docs/performance.md). Tests give the values themselves (`["HOME": "/tmp/x"]`). Names set on a
/// value (`withCurrentProfile`'s `PINGCLI_PROFILE`) are seen by the commands that get that value only,
/// never by the processes pingcli starts, which inherit the process's own environment.
public struct Environment: Sendable, ExpressibleByDictionaryLiteral {
    /// The values given; nil: the process's environment, read with `getenv`.
    private var values: [String: String]?
    /// Names set on top of the process's environment, the last one winning.
    private var changes: [Change] = []

    private struct Change: Sendable {
        var name: String
        var value: String?
    }

    private init(values: [String: String]?) { self.values = values }

    /// Exactly these variables and no others.
    public init(_ values: [String: String]) { self.values = values }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.values = Dictionary(elements) { $1 }
    }

    /// The process's own environment, read by name when asked. Read it before anything changes the
    /// process's environment that a command should still see (`main.swift` keeps `PINGCLI_CLIENT_SECRET`
    /// in the value before it removes it from what children inherit).
    public static var process: Environment { Environment(values: nil) }

    /// The variable's value, or nil when it is not set.
    public subscript(name: String) -> String? {
        get {
            if let values { return values[name] }
            if let change = changes.last(where: { $0.name == name }) { return change.value }
            return name.withCString { getenv($0) }.map { String(cString: $0) }
        }
        set {
            if values != nil {
                values?[name] = newValue
            } else {
                changes.append(Change(name: name, value: newValue))
            }
        }
    }
}
