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

    public init(outputIsReadOnce: Bool = false, soleReaderOp: String? = nil) {
        self.outputIsReadOnce = outputIsReadOnce
        self.soleReaderOp = soleReaderOp
    }
}
