/// An op as the registry holds it: its declaration and how to bind it to parameters.
public struct OpDefinition: Sendable {
    public let spec: OpSpec
    public let makeStage: @Sendable (ParameterValues, NodeFacts) -> any Stage

    public init(_ spec: OpSpec, makeStage: @escaping @Sendable (ParameterValues) -> any Stage) {
        self.spec = spec
        self.makeStage = { parameters, _ in makeStage(parameters) }
    }

    /// For stages that adapt to where their node sits in the graph.
    public init(_ spec: OpSpec, makeStageInGraph: @escaping @Sendable (ParameterValues, NodeFacts) -> any Stage) {
        self.spec = spec
        self.makeStage = makeStageInGraph
    }
}
