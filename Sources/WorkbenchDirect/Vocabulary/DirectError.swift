/// Why the direct path could not do its part; the caller then leaves the item to libvips.
public enum DirectError: Error, Sendable, CustomStringConvertible {
    /// libjpeg refused the file (or could not allocate), with its message.
    case jpegFailed(String)
    /// libjpeg decoded the file but warned of damage: libvips decides what that means.
    case damaged(String)
    /// libwebp could not encode the image, with why.
    case webpFailed(String)
    /// libavif (or the AV1 encoder it runs) refused or failed.
    case avifFailed(String)
    /// libjxl could not decode a JPEG XL, with why.
    case jxlFailed(String)

    public var description: String {
        switch self {
        case .jpegFailed(let message): return "libjpeg: \(message)"
        case .damaged(let message): return "damaged data (libjpeg: \(message))"
        case .webpFailed(let message): return "libwebp: \(message)"
        case .avifFailed(let message): return message
        case .jxlFailed(let message): return "libjxl: \(message)"
        }
    }
}
