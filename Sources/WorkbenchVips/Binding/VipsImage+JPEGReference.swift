import CVips
import Foundation

extension VipsImage {
    /// libjpeg's own decode of a JPEG at 1/`shrink` (through libvips' `jpegload`, failing as
    /// `failOn` says: "none", "truncated", "error", "warning"), as 8-bit samples: what
    /// workbench's progressive decoder is held to, in its tests and its differential fuzzing.
    public static func libjpegPixels(_ data: Data, shrink: Int, failOn: String = "truncated") throws(VipsError)
        -> (pixels: [UInt8], width: Int, height: Int, bands: Int) {
        let level = DecodeOptions.FailOn(rawValue: failOn) ?? .truncated
        let image = try VipsOperationCall.image("jpegload_buffer", nil, [
            "buffer": .blob(data), "shrink": .int(shrink), "fail_on": .failOn(level),
        ])
        return (try image.memoryBytes(origin: "JPEG"), image.width, image.height, image.bands)
    }
}
