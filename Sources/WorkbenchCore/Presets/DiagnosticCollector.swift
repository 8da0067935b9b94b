/// Gathers every problem found while decoding one preset, so all are reported at once.
final class DiagnosticCollector {
    let file: String
    private(set) var diagnostics: [Diagnostic] = []

    init(file: String) { self.file = file }

    var hasErrors: Bool { errorCount > 0 }
    var errorCount: Int { diagnostics.count { $0.severity == .error } }

    func error(_ path: String, at location: SourceLocation?, _ message: String) {
        let diagnostic = Diagnostic(.error, file: file, path: path, location: location, message: message)
        // Copies of a repeated node (`foreach`) make the same mistake at the same place: once is enough.
        if !diagnostics.contains(diagnostic) { diagnostics.append(diagnostic) }
    }

    func warning(_ path: String, at location: SourceLocation?, _ message: String) {
        let diagnostic = Diagnostic(.warning, file: file, path: path, location: location, message: message)
        if !diagnostics.contains(diagnostic) { diagnostics.append(diagnostic) }
    }

    /// Reports each key of `members` that is not in `known`, with the closest known key.
    func rejectUnknownKeys(_ members: [(key: String, keyLocation: SourceLocation, value: JSONValue)],
                           known: [String], path: String, what: String) {
        for member in members where !known.contains(member.key) {
            error(join(path, member.key), at: member.keyLocation,
                  "unknown key \(Self.quote(member.key)) in \(what)" + DidYouMean.hint(for: member.key, among: known)
                  + " (allowed: " + known.map { "\"\($0)\"" }.joined(separator: ", ") + ")")
        }
    }

    /// The `found …` part of a type error: the value itself when short, else its type.
    /// A word from the preset in quotes, cut short if it is long (a message stays readable
    /// whatever the file holds).
    static func quote(_ word: String) -> String {
        word.count <= 60 ? "\"\(word)\"" : "\"\(word.prefix(40))…\" (\(word.count) characters)"
    }

    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .string(let s, _): return s.count <= 40 ? "\"\(s)\"" : "a string"
        case .number(let n, let isInteger, _): return isInteger ? String(Int(exactly: n) ?? 0) : String(n)
        case .bool(let b, _): return String(b)
        default: return value.typeName
        }
    }
}

/// Joins JSON path components: `join("graph[2]", "width")` → `graph[2].width`.
func join(_ path: String, _ key: String) -> String {
    path.isEmpty ? key : "\(path).\(key)"
}
