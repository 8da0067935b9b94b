/// A filter made of other ops: a named sub-graph with declared parameters, from a preset's
/// `filters`, a file it includes, or a plugin's manifest. A node using it is replaced by its
/// nodes when the preset is read (see `PresetFilters`).
public struct GraphFilter: Sendable {
    public let name: String
    public let summary: String
    public let parameters: [ParameterSpec]
    /// The nodes, as written; `"{parameter}"` values are filled in where the filter is used.
    public let graph: [JSONValue]

    public init(name: String, summary: String, parameters: [ParameterSpec], graph: [JSONValue]) {
        self.name = name
        self.summary = summary
        self.parameters = parameters
        self.graph = graph
    }

    /// The filter as `filters` and `schema` list it: an op from image to image.
    public func spec(origin: String) -> OpSpec {
        OpSpec(name: name, summary: summary + " (" + origin + ": " + graph.compactMap { $0["op"]?.stringValue }.joined(separator: " → ") + ")",
               input: .image, output: .image, defaultQueue: "cpu", execution: .cpu, parameters: parameters)
    }
}
