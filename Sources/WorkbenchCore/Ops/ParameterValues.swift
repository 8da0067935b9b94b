/// The validated parameters of one node, with the op's defaults filled in.
public struct ParameterValues: Sendable {
    private var values: [String: ParameterValue]

    public init(_ values: [String: ParameterValue] = [:]) {
        self.values = values
    }

    public subscript(name: String) -> ParameterValue? { values[name] }

    /// These values with `name` set to `value`.
    func setting(_ name: String, _ value: ParameterValue) -> ParameterValues {
        var copy = values
        copy[name] = value
        return ParameterValues(copy)
    }

    public var isEmpty: Bool { values.isEmpty }
    public var names: [String] { values.keys.sorted() }

    public func int(_ name: String) -> Int? {
        if case .int(let v) = values[name] { return v }
        return nil
    }

    /// Integers are accepted where numbers are expected.
    public func double(_ name: String) -> Double? { values[name]?.number }

    public func bool(_ name: String) -> Bool? {
        if case .bool(let v) = values[name] { return v }
        return nil
    }

    public func list(_ name: String) -> [ParameterValue]? {
        if case .list(let v) = values[name] { return v }
        return nil
    }

    /// A number the op declares with a default or as required: validation always fills it in,
    /// so the default is written once, in the declaration (0 if the op did not declare it).
    public func number(_ name: String) -> Double { double(name) ?? 0 }

    /// An integer the op declares with a default or as required (0 if it did not declare it).
    /// An integer parameter, or a number one rounded toward zero (0 if it is none, or too large
    /// for an `Int`: values are checked against their ranges before a stage reads them).
    public func integer(_ name: String) -> Int { int(name) ?? double(name).flatMap { Int(exactly: $0.rounded(.towardZero)) } ?? 0 }

    /// A word the op declares with a default or as required ("" if it did not declare it).
    public func word(_ name: String) -> String { string(name) ?? "" }

    /// A matrix parameter's rows of numbers (empty if absent).
    public func matrix(_ name: String) -> [[Double]] {
        (list(name) ?? []).map { row in
            guard case .list(let cells) = row else { return [] }
            return cells.compactMap(\.number)
        }
    }

    /// A numbers parameter as doubles (empty if absent).
    public func numbers(_ name: String) -> [Double] {
        (list(name) ?? []).compactMap(\.number)
    }

    public func string(_ name: String) -> String? {
        if case .string(let v) = values[name] { return v }
        return nil
    }
}
