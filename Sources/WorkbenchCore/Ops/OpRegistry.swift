/// Every op a preset may name, by name.
public struct OpRegistry: Sendable {
    private var definitions: [String: OpDefinition] = [:]

    public init(_ definitions: [OpDefinition] = []) {
        for definition in definitions { register(definition) }
    }

    /// Adds an op; a later registration under the same name replaces the earlier one.
    public mutating func register(_ definition: OpDefinition) {
        definitions[definition.spec.name] = definition
    }

    public subscript(name: String) -> OpDefinition? { definitions[name] }

    public var names: [String] { definitions.keys.sorted() }

    public var specs: [OpSpec] { names.compactMap { definitions[$0]?.spec } }
}
