import CVips
import Foundation
import WorkbenchCore

/// The formats `encode` writes.
enum EncodeFormat: String, CaseIterable, Sendable {
    case jpeg, png, webp

    var displayName: String { rawValue.uppercased() }
}

/// Saver settings, with libvips' own names where libvips has them.
struct EncodeOptions: Sendable {
    var format: EncodeFormat
    var quality: Int
    var strip: Bool
    var lossless: Bool
    var compression: Int
}

extension VipsImage {
    /// Decodes a whole file's bytes for inspection (random access, fails on any error).
    public static func decode(_ data: Data, origin: String) throws(VipsError) -> VipsImage {
        try load(Bytes(data, origin: origin), sequential: false, failOn: VIPS_FAIL_ON_ERROR)
    }

    /// Evaluates the pipeline and encodes it. Cancelling `token` kills the evaluation.
    func encode(_ options: EncodeOptions, cancellation token: CancellationToken) throws(VipsError) -> Data {
        if token.isCancelled { throw .cancelled }
        let image = pointer
        // The kill flag is read by the evaluation's threads; setting it stops them at their next tile.
        let key = token.onCancel { [self] in vips_image_set_kill(pointer, 1) }
        defer { token.removeHandler(key) }

        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let (status, message) = VipsErrorLog.call({ () -> Int32 in
            switch options.format {
            case .jpeg:
                return cvips_jpegsave_buffer(image, &buffer, &length, Int32(options.quality), options.strip ? 1 : 0)
            case .png:
                return cvips_pngsave_buffer(image, &buffer, &length, Int32(options.compression), options.strip ? 1 : 0)
            case .webp:
                return cvips_webpsave_buffer(image, &buffer, &length, Int32(options.quality),
                                             options.lossless ? 1 : 0, options.strip ? 1 : 0)
            }
        }, failed: { $0 != 0 })
        if token.isCancelled {
            g_free(buffer)
            throw .cancelled
        }
        guard status == 0, let buffer else {
            throw .encodeFailed(format: options.format.displayName, message: message ?? "libvips gave no message")
        }
        // Data takes ownership of libvips' buffer and frees it with g_free.
        return Data(bytesNoCopy: buffer, count: length, deallocator: .custom { pointer, _ in g_free(pointer) })
    }
}
