/// How far a running node has got, for progress displays: bytes a download has moved, or
/// pixels an encode has computed.
public struct ProgressEvent: Sendable {
    /// What `bytes` and `expectedBytes` count.
    public enum Unit: Sendable {
        case bytes, pixels
    }

    public let item: Item
    public let node: String
    /// Done so far, in `unit`s.
    public let bytes: Int
    /// The total, when known (a download's Content-Length, an image's pixels).
    public let expectedBytes: Int?
    public let unit: Unit

    public init(item: Item, node: String, bytes: Int, expectedBytes: Int?, unit: Unit = .bytes) {
        self.item = item
        self.node = node
        self.bytes = bytes
        self.expectedBytes = expectedBytes
        self.unit = unit
    }
}
