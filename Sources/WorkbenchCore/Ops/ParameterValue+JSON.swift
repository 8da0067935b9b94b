import Foundation

/// A validated value written back as JSON: the one converter, for `workbench filters`, the live
/// page and filters a preset defines.
extension ParameterValue {
    /// The value as JSON text (a number that is not finite, which JSON cannot say, as `null`).
    public var jsonText: String {
        switch self {
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return d.isFinite ? String(d) : "null"
        case .string(let s):
            // A String always serialises as a JSON fragment; the fallback is never taken.
            let data = (try? JSONSerialization.data(withJSONObject: s, options: [.fragmentsAllowed, .withoutEscapingSlashes])) ?? Data("\"\"".utf8)
            return String(decoding: data, as: UTF8.self)
        case .list(let items): return "[" + items.map(\.jsonText).joined(separator: ", ") + "]"
        }
    }
}

extension JSONValue {
    /// A validated value as the JSON a preset would write, placed at `location` for messages.
    init(_ value: ParameterValue, at location: SourceLocation) {
        switch value {
        case .bool(let b): self = .bool(b, location)
        case .int(let i): self = .number(Double(i), isInteger: true, location)
        case .double(let d): self = .number(d, isInteger: false, location)
        case .string(let s): self = .string(s, location)
        case .list(let list): self = .array(list.map { JSONValue($0, at: location) }, location)
        }
    }
}
