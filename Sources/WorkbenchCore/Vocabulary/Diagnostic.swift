/// One problem found in a preset: where it is and what to do about it.
public struct Diagnostic: Sendable, CustomStringConvertible, Hashable {
    public enum Severity: String, Sendable {
        case error, warning
    }

    public let severity: Severity
    /// The preset file.
    public let file: String
    /// The JSON path of the offending value, e.g. `graph[3].width`; empty for the whole document.
    public let path: String
    public let location: SourceLocation?
    public let message: String

    public init(_ severity: Severity = .error, file: String, path: String, location: SourceLocation?, message: String) {
        self.severity = severity
        self.file = file
        self.path = path
        self.location = location
        self.message = message
    }

    /// `file:line:column: error: path: message`, the shape compilers use, so editors can jump to it.
    public var description: String {
        var text = file
        if let location { text += ":\(location)" }
        text += ": \(severity.rawValue): "
        if !path.isEmpty { text += "\(path): " }
        return text + message
    }
}

/// Suggests the closest known word for a misspelt one.
public enum DidYouMean {
    /// Words longer than this get no suggestion: no name is that long, and comparing costs
    /// the product of the lengths.
    static let longestWord = 64

    public static func suggestion(for word: String, among candidates: [String]) -> String? {
        let length = word.utf8.count
        guard length <= longestWord else { return nil }
        let limit = max(2, length / 3)
        let lowered = word.lowercased()
        var best: (word: String, distance: Int)?
        for candidate in candidates where abs(candidate.utf8.count - length) <= limit {
            let d = distance(lowered, candidate.lowercased())
            if d <= limit && d < (best?.distance ?? .max) { best = (candidate, d) }
        }
        return best?.word
    }

    /// ` (did you mean "x"?)` or an empty string.
    static func hint(for word: String, among candidates: [String]) -> String {
        suggestion(for: word, among: candidates).map { "; did you mean \"\($0)\"?" } ?? ""
    }

    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
