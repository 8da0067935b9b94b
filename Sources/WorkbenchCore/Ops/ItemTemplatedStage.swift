/// A stage whose string parameters name item variables (`"text": "{name}"`, a contact sheet's
/// label): made again for each item with the item's values filled in. Made by the linker only
/// for nodes that need it, so other stages are built once as before.
struct ItemTemplatedStage: Stage {
    let definition: OpDefinition
    let parameters: ParameterValues
    /// Parameters whose text names an item variable.
    let templated: [String]
    let facts: NodeFacts

    /// The wrapper `stage` needs, or `stage` itself when no string parameter names an item variable.
    static func wrapping(_ stage: any Stage, definition: OpDefinition, parameters: ParameterValues, facts: NodeFacts) -> any Stage {
        let templated = definition.spec.parameters.compactMap { spec -> String? in
            guard case .string = spec.type, let text = parameters.string(spec.name), ItemText.namesVariables(text) else { return nil }
            return spec.name
        }
        guard !templated.isEmpty else { return stage }
        let wrapper = ItemTemplatedStage(definition: definition, parameters: parameters, templated: templated, facts: facts)
        return stage is any AsyncStage ? ItemTemplatedAsyncStage(wrapped: wrapper) : wrapper
    }

    /// The stage for this item.
    func stage(for item: Item) -> any Stage {
        var values = parameters
        for name in templated {
            if let text = parameters.string(name) { values = values.setting(name, .string(ItemText.render(text, for: item))) }
        }
        return definition.makeStage(values, facts)
    }

    func run(_ inputs: StageInputs, context: StageContext) throws -> Payload {
        try stage(for: context.item).run(inputs, context: context)
    }
}

/// The same for stages that run without holding a thread (downloads).
struct ItemTemplatedAsyncStage: AsyncStage {
    let wrapped: ItemTemplatedStage

    func start(_ inputs: StageInputs, context: StageContext, completion: @escaping @Sendable (Result<Payload, any Error>) -> Void) {
        let stage = wrapped.stage(for: context.item)
        if let async = stage as? any AsyncStage { return async.start(inputs, context: context, completion: completion) }
        completion(Result { try stage.run(inputs, context: context) })
    }
}
