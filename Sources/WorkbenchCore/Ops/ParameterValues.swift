/// The validated parameters of one node, with the op's defaults filled in.
public struct ParameterValues: Sendable {
    private var values: [String: ParameterValue]

    public init(_ values: [String: ParameterValue] = [:]) {
        self.values = values
    }

    public subscript(name: String) -> ParameterValue? { values[name] }

    public var isEmpty: Bool { values.isEmpty }
    public var names: [String] { values.keys.sorted() }

    public func int(_ name: String) -> Int? {
        if case .int(let v) = values[name] { return v }
        return nil
    }

    /// Integers are accepted where numbers are expected.
    public func double(_ name: String) -> Double? {
        switch values[name] {
        case .double(let v): return v
        case .int(let v): return Double(v)
        default: return nil
        }
    }

    public func bool(_ name: String) -> Bool? {
        if case .bool(let v) = values[name] { return v }
        return nil
    }

    public func list(_ name: String) -> [ParameterValue]? {
        if case .list(let v) = values[name] { return v }
        return nil
    }

    public func string(_ name: String) -> String? {
        if case .string(let v) = values[name] { return v }
        return nil
    }
}
