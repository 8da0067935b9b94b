/// What the graph tells a stage about its node, found when the preset is linked.
public struct NodeFacts: Sendable {
    /// The node's image is evaluated once, top to bottom: one consumer reads it through `from`,
    /// reads sequentially, and the same holds for that consumer's image, down to an encoder.
    /// A decoder streams (sequential access) only then.
    public let outputIsReadOnce: Bool
    /// The op of the one node that reads this node's output, through `from` and in the same
    /// scope, when no other node reads it: a decode followed only by a resize hands the resize
    /// what it needs to decode and shrink in one step.
    public let soleReaderOp: String?
    /// The sole reader, its own sole reader, and so on: each node's op and parameters, for a
    /// stage that can do a whole chain its own way (a decode that sees a thumbnail then a JPEG
    /// encode after it takes the direct path).
    public let soleReaders: [Reader]
    /// How many sole readers are kept in `soleReaders`.
    public static let readersKept = 3

    /// One node of `soleReaders`.
    public struct Reader: Sendable {
        public let op: String
        public let parameters: ParameterValues
    }

    /// Several nodes read the result within an item: a stage whose result is lazy computes it
    /// once and keeps it (within its memory limit), rather than have each reader compute it again.
    public let keepsResult: Bool

    /// The planner has this node read a larger resize's result instead of the full image
    /// (`GraphPlanner`'s cascade).
    public let madeFromLarger: Bool

    public init(outputIsReadOnce: Bool = false, soleReaderOp: String? = nil, soleReaders: [Reader] = [], keepsResult: Bool = false,
                madeFromLarger: Bool = false) {
        self.keepsResult = keepsResult
        self.madeFromLarger = madeFromLarger
        self.outputIsReadOnce = outputIsReadOnce
        self.soleReaderOp = soleReaderOp
        self.soleReaders = soleReaders
    }
}
