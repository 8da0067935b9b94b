import Foundation
import WorkbenchCore

extension VipsImage {
    /// A small JPEG of an image file, at most `size` pixels on its longer side (shrunk while
    /// decoding, so a 24-megapixel photo costs a fraction of a full decode): previews for the
    /// live workbench. Nil when the file is not an image libvips reads.
    public static func preview(ofFile path: String, size: Int, quality: Int = 80) -> Data? {
        // A file that cannot be read has no preview; the page shows the item without one.
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe),
              let jpeg = EncodeFormat.named("jpeg") else { return nil }
        do {
            let image = try VipsOperationCall.image("thumbnail_buffer", nil, [
                "buffer": .blob(data), "width": .int(size), "height": .int(size),
            ])
            return try image.encode(jpeg, options: ["Q": .int(quality), "strip": .bool(true)], cancellation: CancellationToken()).data
        } catch {
            return nil
        }
    }
}
