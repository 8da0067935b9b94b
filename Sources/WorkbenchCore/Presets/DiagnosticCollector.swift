/// Gathers every problem found while decoding one preset, so all are reported at once.
final class DiagnosticCollector {
    let file: String
    private(set) var diagnostics: [Diagnostic] = []
    /// What `diagnostics` holds, for finding repeats in constant time (a preset of a million
    /// nodes can make a million mistakes).
    private var seen = Set<Diagnostic>()
    private(set) var errorCount = 0
    /// Errors reported, repeats included: a copy's mistake is stored once but still counts for
    /// the copy (whose combined parameters are then not judged).
    private(set) var errorsReported = 0

    init(file: String) { self.file = file }

    var hasErrors: Bool { errorCount > 0 }

    func error(_ path: String, at location: SourceLocation?, _ message: String) {
        errorsReported += 1
        add(Diagnostic(.error, file: file, path: path, location: location, message: message))
    }

    func warning(_ path: String, at location: SourceLocation?, _ message: String) {
        add(Diagnostic(.warning, file: file, path: path, location: location, message: message))
    }

    /// Copies of a repeated node (`foreach`) make the same mistake at the same place: once is enough.
    private func add(_ diagnostic: Diagnostic) {
        guard seen.insert(diagnostic).inserted else { return }
        diagnostics.append(diagnostic)
        if diagnostic.severity == .error { errorCount += 1 }
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
        case .number(let n, let isInteger, _):
            if isInteger, let exact = value.exactInteger { return String(exact) }
            // Its digits were rounded when read: the number itself would mislead.
            if isInteger { return "an integer past ±2^53, which a JSON number does not hold exactly" }
            return String(n)
        case .bool(let b, _): return String(b)
        default: return value.typeName
        }
    }
}

/// Joins JSON path components: `join("graph[2]", "width")` → `graph[2].width`.
func join(_ path: String, _ key: String) -> String {
    path.isEmpty ? key : "\(path).\(key)"
}
