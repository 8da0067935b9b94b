import Foundation

/// How the direct path's encoders are called, the same for libjpeg, libwebp and libavif: the
/// image and its optional profile and EXIF bytes lent to C for one call, which answers a status,
/// a buffer it allocated and an error message; the buffer taken as `Data` and given back to the
/// library that made it.
struct EncoderCall {
    /// What the C call fills in.
    var out: UnsafeMutablePointer<UInt8>?
    var size = 0
    var error = [CChar](repeating: 0, count: 300)

    /// The bytes lent for one call: the planes (or pixels in `y`), the profile and the EXIF block
    /// (empty when not given).
    struct Lent {
        let y: UnsafeBufferPointer<UInt8>, cb: UnsafeBufferPointer<UInt8>, cr: UnsafeBufferPointer<UInt8>
        let icc: UnsafeBufferPointer<UInt8>, exif: UnsafeBufferPointer<UInt8>
    }

    /// Runs `body` with a YCbCr image's planes and the extras lent.
    static func lending<R>(_ image: YCbCrImage, icc: [UInt8]?, exif: [UInt8]?, _ body: (Lent) -> R) -> R {
        image.y.pixels.withUnsafeBufferPointer { y in
            image.cb.pixels.withUnsafeBufferPointer { cb in
                image.cr.pixels.withUnsafeBufferPointer { cr in
                    lending(icc, exif) { icc, exif in body(Lent(y: y, cb: cb, cr: cr, icc: icc, exif: exif)) }
                }
            }
        }
    }

    /// Runs `body` with interleaved pixels (as `y`) and the extras lent.
    static func lending<R>(_ image: PixelImage, icc: [UInt8]?, exif: [UInt8]?, _ body: (Lent) -> R) -> R {
        image.pixels.withUnsafeBufferPointer { pixels in
            lending(icc, exif) { icc, exif in body(Lent(y: pixels, cb: UnsafeBufferPointer(start: nil, count: 0),
                                                        cr: UnsafeBufferPointer(start: nil, count: 0), icc: icc, exif: exif)) }
        }
    }

    private static func lending<R>(_ icc: [UInt8]?, _ exif: [UInt8]?, _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> R) -> R {
        (icc ?? []).withUnsafeBufferPointer { icc in (exif ?? []).withUnsafeBufferPointer { exif in body(icc, exif) } }
    }

    /// The library's message, for an error.
    var message: String {
        String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The encoded bytes, once `status` says the call succeeded; the buffer is handed to `free`
    /// either way, and a failure becomes `failure(message)`.
    func taken(_ status: Int32, free: (UnsafeMutablePointer<UInt8>, Int) -> Void,
               failure: (String) -> DirectError) throws(DirectError) -> Data {
        defer { if let out { free(out, size) } }
        guard status == 0, let out else { throw failure(message) }
        return Data(bytes: out, count: size)
    }
}
