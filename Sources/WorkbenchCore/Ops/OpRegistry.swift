/// Every op a preset may name, by name.
public struct OpRegistry: Sendable {
    private var definitions: [String: OpDefinition] = [:]
    private var unavailableReasons: [String: String] = [:]

    /// `unavailable`: names an engine has but presets cannot use, with the reason (told to a
    /// preset that names one instead of "unknown op").
    public init(_ definitions: [OpDefinition] = [], unavailable: [(name: String, reason: String)] = []) {
        for definition in definitions { register(definition) }
        for (name, reason) in unavailable where self.definitions[name] == nil { unavailableReasons[name] = reason }
    }

    /// Why `name` cannot be used, if it is one of the unavailable names.
    public func unavailableReason(_ name: String) -> String? { unavailableReasons[name] }

    /// The unavailable names and reasons, sorted by name.
    public var unavailable: [(name: String, reason: String)] {
        unavailableReasons.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Adds an op; a later registration under the same name replaces the earlier one.
    public mutating func register(_ definition: OpDefinition) {
        definitions[definition.spec.name] = definition
    }

    public subscript(name: String) -> OpDefinition? { definitions[name] }

    public var names: [String] { definitions.keys.sorted() }

    public var specs: [OpSpec] { names.compactMap { definitions[$0]?.spec } }
}
