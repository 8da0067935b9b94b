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
        var size = 0
        let (memory, message) = VipsErrorLog.call(exclusive: false, { vips_image_write_to_memory(image.pointer, &size) }, failed: { $0 == nil })
        guard let memory else { throw .decodeFailed(origin: "JPEG", message: message ?? "libjpeg refused it") }
        defer { g_free(memory) }
        return (Array(UnsafeRawBufferPointer(start: memory, count: size)), image.width, image.height, image.bands)
    }
}
