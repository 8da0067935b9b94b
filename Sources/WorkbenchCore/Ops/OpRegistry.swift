/// Every op a preset may name, by name.
///
/// Ops come as definitions, or from providers that build theirs only when one of their names is
/// asked for: a preset that only downloads and writes never starts libvips.
public struct OpRegistry: Sendable {
    private var definitions: [String: OpDefinition] = [:]
    private var unavailableReasons: [String: String] = [:]
    private var providers: [OpProvider] = []

    /// `unavailable`: names an engine has but presets cannot use, with the reason (told to a
    /// preset that names one instead of "unknown op").
    public init(_ definitions: [OpDefinition] = [], unavailable: [(name: String, reason: String)] = [],
                providers: [OpProvider] = []) {
        for definition in definitions { register(definition) }
        for (name, reason) in unavailable where self.definitions[name] == nil { unavailableReasons[name] = reason }
        self.providers = providers
    }

    /// Why `name` cannot be used, if it is one of the unavailable names.
    public func unavailableReason(_ name: String) -> String? {
        if let reason = unavailableReasons[name] { return reason }
        // `plugin.*` stands for every name of a refused plugin.
        return providers.first { $0.claims(name) }?.unavailable().first {
            $0.name == name || ($0.name.hasSuffix(".*") && name.hasPrefix($0.name.dropLast()))
        }?.reason
    }

    /// The unavailable names and reasons, sorted by name.
    public var unavailable: [(name: String, reason: String)] {
        var all = unavailableReasons
        for provider in providers { for (name, reason) in provider.unavailable() where all[name] == nil { all[name] = reason } }
        return all.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Adds an op; a later registration under the same name replaces the earlier one.
    public mutating func register(_ definition: OpDefinition) {
        definitions[definition.spec.name] = definition
    }

    public subscript(name: String) -> OpDefinition? {
        if let definition = definitions[name] { return definition }
        return providers.first { $0.claims(name) }?.definition(name)
    }

    /// Every name (asks every provider for its list), sub-graph filters included.
    public var names: [String] {
        var all = Set(definitions.keys)
        for provider in providers { all.formUnion(provider.names()) }
        all.formUnion(graphFilters.map(\.name))
        return all.sorted()
    }

    /// Every op's declaration; sub-graph filters as ops from image to image.
    public var specs: [OpSpec] {
        let graphs = Dictionary(graphFilters.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        return names.compactMap { name in self[name]?.spec ?? graphs[name]?.spec(origin: "a sub-graph of plugin \(name.split(separator: ".")[0])") }
    }

    /// Tells the provider of `name` what a node using it says (its text values), before the
    /// node's op is looked up: an engine may bring in what those values need (a libvips module
    /// for `"format": "avif"`), so the op's declaration includes it.
    public func prepare(_ name: String, words: [String]) {
        providers.first { $0.claims(name) }?.prepare(name, words)
    }

    /// Has every provider bring in all it can offer, so each op's declaration is as complete as
    /// this build allows (`encode` then lists the options of savers libvips keeps in modules):
    /// for documentation, where a run would bring in only what its preset names.
    public func bringInEverything() {
        for provider in providers { provider.everything() }
    }

    /// Filters made of other ops that providers offer (plugins' sub-graphs).
    public var graphFilters: [GraphFilter] { providers.flatMap { $0.graphs() } }
}

/// Ops an engine builds on demand: `claims` must answer from names alone, cheaply.
public struct OpProvider: Sendable {
    public let claims: @Sendable (String) -> Bool
    public let names: @Sendable () -> [String]
    public let definition: @Sendable (String) -> OpDefinition?
    public let unavailable: @Sendable () -> [(name: String, reason: String)]
    /// Filters made of other ops, expanded where a preset uses them.
    public let graphs: @Sendable () -> [GraphFilter]
    /// Hears an op name and a node's text values before the op is looked up (see
    /// `OpRegistry.prepare`).
    public let prepare: @Sendable (String, [String]) -> Void
    /// Brings in every op it can offer (see `OpRegistry.bringInEverything`).
    public let everything: @Sendable () -> Void

    public init(claims: @escaping @Sendable (String) -> Bool, names: @escaping @Sendable () -> [String],
                definition: @escaping @Sendable (String) -> OpDefinition?,
                unavailable: @escaping @Sendable () -> [(name: String, reason: String)] = { [] },
                graphs: @escaping @Sendable () -> [GraphFilter] = { [] },
                prepare: @escaping @Sendable (String, [String]) -> Void = { _, _ in },
                everything: @escaping @Sendable () -> Void = {}) {
        self.claims = claims
        self.names = names
        self.definition = definition
        self.unavailable = unavailable
        self.graphs = graphs
        self.prepare = prepare
        self.everything = everything
    }
}
