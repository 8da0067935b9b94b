/// A validated parameter value.
public enum ParameterValue: Sendable, Equatable, CustomStringConvertible {
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    /// Lists: numbers, words, references, or a matrix's rows.
    case list([ParameterValue])

    public var description: String {
        switch self {
        case .bool(let b): return String(b)
        case .int(let i): return String(i)
        case .double(let d): return String(d)
        case .string(let s): return "\"\(s)\""
        case .list(let values): return "[" + values.map(\.description).joined(separator: ", ") + "]"
        }
    }
}

extension ParameterValue {
    /// An integer or a number as a `Double`; nil for anything else.
    public var number: Double? {
        switch self {
        case .double(let d): return d
        case .int(let i): return Double(i)
        default: return nil
        }
    }
}
