/// What flows along a graph edge.
public enum PayloadKind: String, Sendable {
    case bytes, image, file

    public var article: String { self == .image ? "an image" : self == .bytes ? "bytes" : "a written file" }
}
