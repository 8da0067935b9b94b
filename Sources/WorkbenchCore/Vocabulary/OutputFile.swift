/// A file a `write` put under the output root, as reports and the manifest describe it.
public struct OutputFile: Sendable, Hashable, Codable {
    /// Relative to the output root.
    public var path: String
    /// The id of the `write` node that wrote it.
    public var node: String
    public var bytes: Int
    /// The image's size and format, when the bytes came from `encode`.
    public var width: Int?
    public var height: Int?
    public var format: String?
    /// The hash of everything the file was made from (see `RecipeBook`), when known.
    public var recipe: String?
    /// Set when the `write` made no file on purpose, saying why: its copy came out the same as
    /// a smaller copy of the same node (`Payload.omitted`). `bytes` is then 0.
    public var notMade: String?

    public init(path: String, node: String, bytes: Int, width: Int? = nil, height: Int? = nil, format: String? = nil,
                recipe: String? = nil, notMade: String? = nil) {
        self.path = path
        self.node = node
        self.bytes = bytes
        self.width = width
        self.height = height
        self.format = format
        self.recipe = recipe
        self.notMade = notMade
    }
}
