/// A position in a text file, 1-based, as editors show it.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public var description: String { "\(line):\(column)" }
}

/// A parsed JSON value that remembers where it came from, so preset errors can point at it.
public indirect enum JSONValue: Sendable {
    case null(SourceLocation)
    case bool(Bool, SourceLocation)
    case number(Double, isInteger: Bool, SourceLocation)
    case string(String, SourceLocation)
    case array([JSONValue], SourceLocation)
    /// Members keep their file order; duplicate keys are rejected by the parser.
    case object([(key: String, keyLocation: SourceLocation, value: JSONValue)], SourceLocation)

    public var location: SourceLocation {
        switch self {
        case .null(let l), .bool(_, let l), .number(_, _, let l), .string(_, let l),
             .array(_, let l), .object(_, let l):
            return l
        }
    }

    /// The JSON type's name as users know it, for "expected …, found …" messages.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number(_, let isInteger, _): return isInteger ? "an integer" : "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    public subscript(key: String) -> JSONValue? {
        guard case .object(let members, _) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    public var stringValue: String? {
        if case .string(let s, _) = self { return s }
        return nil
    }
}

extension JSONValue {
    /// Below this magnitude (2^53) every integer is exactly a double. Past it a JSON number's
    /// digits are rounded when read (`9007199254740993` reads as `…992`), so the number the
    /// file says is not the number that would be used.
    public static let exactIntegerLimit = 9_007_199_254_740_992.0

    /// The value as an `Int` when it is a whole number read exactly; nil for anything else
    /// (text, a fraction, an integer past ±2^53).
    public var exactInteger: Int? {
        guard case .number(let n, _, _) = self, abs(n) < Self.exactIntegerLimit else { return nil }
        return Int(exactly: n)
    }

    /// An integer literal too large to have been read exactly.
    public var isInexactInteger: Bool {
        guard case .number(let n, true, _) = self else { return false }
        return abs(n) >= Self.exactIntegerLimit
    }
}
