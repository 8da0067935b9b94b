/// What the graph tells a stage about its node, found when the preset is linked.
public struct NodeFacts: Sendable {
    /// The node's image is evaluated once, top to bottom: one consumer reads it through `from`,
    /// reads sequentially, and the same holds for that consumer's image, down to an encoder.
    /// A decoder streams (sequential access) only then.
    public let outputIsReadOnce: Bool
    /// For a decoder: the resize that alone reads it decodes and shrinks in one step from the
    /// bytes (`NodePlan.fusedInto`).
    public let decodedByResize: Bool
    /// For a decoder: the chain after it the direct path runs (`NodePlan.direct`).
    public let direct: DirectChain?
    /// Several nodes read the result within an item: a stage whose result is lazy computes it
    /// once and keeps it (within its memory limit), rather than have each reader compute it again.
    public let keepsResult: Bool

    /// The planner has this node read a larger resize's result instead of the full image
    /// (`GraphPlanner`'s cascade).
    public let madeFromLarger: Bool

    public init(outputIsReadOnce: Bool = false, decodedByResize: Bool = false, direct: DirectChain? = nil, keepsResult: Bool = false,
                madeFromLarger: Bool = false) {
        self.decodedByResize = decodedByResize
        self.direct = direct
        self.keepsResult = keepsResult
        self.madeFromLarger = madeFromLarger
        self.outputIsReadOnce = outputIsReadOnce
    }
}
