import Foundation

/// Encoded bytes: a download, a file read, or an encoder's output.
///
/// A class: payloads are handed from node to node many times, and a reference is cheaper to
/// pass along than the `Data` and `String` it holds.
public final class Bytes: Sendable {
    public let data: Data
    /// Where the bytes came from (URL or path), for messages.
    public let origin: String
    /// When the bytes live in an (unlinked) temporary file, that file: `write` copies it
    /// kernel-side instead of reading `data`, so a large download never passes through memory.
    public let file: SpooledFile?
    /// The image the bytes encode, when an encoder made them: reports and the manifest say it.
    public let image: EncodedImage?

    public init(_ data: Data, origin: String, file: SpooledFile? = nil, image: EncodedImage? = nil) {
        self.data = data
        self.origin = origin
        self.file = file
        self.image = image
    }
}
