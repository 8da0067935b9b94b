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
