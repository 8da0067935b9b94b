import Foundation

/// Tells common image formats from their first bytes, so their loaders are called directly.
///
/// libvips can find the loader itself, but its search runs every loader's test, and some of
/// those tests freeze libvips' one, process-wide error buffer while they run: an evaluation
/// failing on another thread at that moment loses its message. Calling the loader directly
/// skips the search (and is quicker); other formats still go through libvips' search.
enum FormatSniffer {
    /// The buffer loader for these bytes, e.g. "jpegload_buffer", or nil for other formats.
    static func loader(for data: Data) -> String? {
        let head = [UInt8](data.prefix(16))
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + magic.count && Array(head[offset..<offset + magic.count]) == magic
        }
        if starts([0xFF, 0xD8, 0xFF]) { return "jpegload_buffer" }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "pngload_buffer" }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return "gifload_buffer" }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return "webpload_buffer" }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return "tiffload_buffer" }
        if starts(Array("ftyp".utf8), at: 4) {
            let brand = String(decoding: head.dropFirst(8).prefix(4), as: UTF8.self)
            if ["heic", "heix", "hevc", "heim", "heis", "mif1", "msf1", "avif", "avis"].contains(brand) { return "heifload_buffer" }
        }
        return nil
    }

    /// Whether these bytes are JPEG XL: a bare codestream (FF 0A) or the container's signature
    /// box. (Not a loader above: libvips' JPEG XL loader stays blocked as untrusted.)
    static func isJPEGXL(_ data: Data) -> Bool {
        data.starts(with: [0xFF, 0x0A]) || data.starts(with: [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A])
    }
}
