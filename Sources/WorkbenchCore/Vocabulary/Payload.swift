/// What a node produces and hands to its downstream nodes.
public enum Payload: Sendable {
    case bytes(Bytes)
    case image(any ImageHandle)
    /// A file `write` put in place.
    case file(OutputFile)
    /// The item's input, left unread because it is as an earlier run recorded it and nothing of
    /// the item needs doing (`InputHistory`); the scheduler leaves out everything downstream.
    case unreadInput(InputIdentity)
    /// A copy not made, and why: its image came out the same as a smaller copy's of the same
    /// node (`NodePlan.smallerCopies`). Nodes downstream pass it on without running; `write`
    /// records it as a file not made.
    case omitted(String)

    public var kind: PayloadKind {
        switch self {
        case .bytes, .unreadInput: return .bytes
        case .image, .omitted: return .image
        case .file: return .file
        }
    }
}
