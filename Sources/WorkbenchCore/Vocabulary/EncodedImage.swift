/// What an encoder knows about the image in its bytes, carried to the file `write` makes.
public struct EncodedImage: Sendable, Hashable {
    public let width: Int
    public let height: Int
    public let format: String

    public init(width: Int, height: Int, format: String) {
        (self.width, self.height, self.format) = (width, height, format)
    }
}
