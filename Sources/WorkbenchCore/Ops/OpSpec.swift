/// Where an op's body runs: `cpu` on the worker pool sized to the cores, `io` on threads that may
/// block on the network or the disk.
public enum ExecutionKind: Sendable {
    case cpu, io
}

/// The declaration of an op: its name, its parameters, what it consumes and produces.
public struct OpSpec: Sendable {
    public let name: String
    public let summary: String
    /// `nil` for source ops (`read`, `download`), which start from the item itself.
    public let input: PayloadKind?
    public let output: PayloadKind
    public let defaultQueue: String
    public let execution: ExecutionKind
    public let parameters: [ParameterSpec]
    /// The node `timeout` in seconds when the preset gives none (e.g. downloads), or nil for none.
    public let defaultTimeout: Double?
    /// For source ops: the parameter that names the input instead of the item (`url`, `path`);
    /// required when the node has run scope, where there is no item.
    public let sourceParameter: String?
    /// Still offered, with a warning at load.
    public let isDeprecated: Bool
    /// Checks that involve several parameters (e.g. "give width or height"); returns what is
    /// wrong, or nil. Runs at load, after each parameter was checked on its own.
    public let check: (@Sendable (ParameterValues) -> String?)?
    /// Evaluates its image input once, top to bottom (libvips' sequential operations, encoders),
    /// so a decoder upstream may stream.
    public let readsSequentially: Bool
    /// For a resize that fits the image inside a box: the box a node's parameters give, or nil
    /// when they do something else (the planner cascades such resizes, `GraphPlanner`).
    public let fitBox: (@Sendable (ParameterValues) -> FitBox?)?
    /// A decoder that can leave its work to a resize reading it alone, which then decodes and
    /// shrinks in one step from the bytes (shrink-on-load).
    public let shrinksOnLoad: Bool
    /// What a node's parameters make of it on the direct path, if anything (`DirectForm`).
    public let directForm: (@Sendable (ParameterValues) -> DirectForm?)?
    /// For a resizing op: what a node asks for (`ResizeRequest`).
    public let resizeRequest: (@Sendable (ParameterValues) -> ResizeRequest?)?
    /// Bytes the op holds while it runs on an image of `pixels` pixels, beyond its input (an
    /// encoder's working buffers): what a run's memory check counts for it (`RunFootprint`).
    public let heldBytes: (@Sendable (ParameterValues, _ pixels: Int) -> Int)?

    public init(name: String, summary: String, input: PayloadKind?, output: PayloadKind,
                defaultQueue: String, execution: ExecutionKind, parameters: [ParameterSpec],
                defaultTimeout: Double? = nil, sourceParameter: String? = nil, deprecated: Bool = false,
                readsSequentially: Bool = false, fitBox: (@Sendable (ParameterValues) -> FitBox?)? = nil,
                shrinksOnLoad: Bool = false, directForm: (@Sendable (ParameterValues) -> DirectForm?)? = nil,
                resizeRequest: (@Sendable (ParameterValues) -> ResizeRequest?)? = nil,
                heldBytes: (@Sendable (ParameterValues, _ pixels: Int) -> Int)? = nil,
                check: (@Sendable (ParameterValues) -> String?)? = nil) {
        self.resizeRequest = resizeRequest
        self.heldBytes = heldBytes
        self.fitBox = fitBox
        self.directForm = directForm
        self.shrinksOnLoad = shrinksOnLoad
        self.isDeprecated = deprecated
        self.readsSequentially = readsSequentially
        self.check = check
        self.name = name
        self.summary = summary
        self.input = input
        self.output = output
        self.defaultQueue = defaultQueue
        self.execution = execution
        self.parameters = parameters
        self.defaultTimeout = defaultTimeout
        self.sourceParameter = sourceParameter
    }

    func parameter(named key: String) -> ParameterSpec? {
        parameters.first { $0.name == key || $0.aliases.contains(key) }
    }
}
