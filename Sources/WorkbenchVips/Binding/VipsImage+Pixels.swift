import CVips
import Foundation

/// What the decoders and stages above the binding ask of an image's samples, in Swift's terms:
/// its sample kind and colour space as questions, its pixels, and images made from pixels our
/// own decoders and passes made.
extension VipsImage {
    /// 8-bit samples.
    var isEightBit: Bool { format == VIPS_FORMAT_UCHAR }
    /// Bytes a sample takes (1 for 8-bit, 2 for 16-bit, 4 for float, …).
    var sampleBytes: Int { Int(vips_format_sizeof(format)) }
    /// Grey (8-bit "b-w" or "grey16"), not colour.
    var isGrey: Bool { interpretation == VIPS_INTERPRETATION_B_W || interpretation == VIPS_INTERPRETATION_GREY16 }
    /// 16-bit grey ("grey16").
    var isGrey16: Bool { interpretation == VIPS_INTERPRETATION_GREY16 }
    /// Said to be sRGB (8-bit "srgb").
    var isSRGB: Bool { interpretation == VIPS_INTERPRETATION_sRGB }

    /// The embedded ICC profile, if the image has one.
    var iccProfile: Data? {
        var data: UnsafeRawPointer?
        var length = 0
        guard hasMetadata("icc-profile-data"), vips_image_get_blob(pointer, "icc-profile-data", &data, &length) == 0,
              let data else { return nil }
        return Data(bytes: data, count: length)
    }

    /// The samples of an image held in memory (`inMemory()`), row after row; nil for a lazy one.
    var samples: UnsafeRawPointer? { vips_image_get_data(pointer).map { UnsafeRawPointer($0) } }

    /// `pixels` (from malloc, interleaved rows in `header`'s sample format), taken over without
    /// a copy, as an image carrying `header`'s interpretation and metadata — as if a loader had
    /// made it; libvips frees them when it closes. Nil (the pixels freed) when libvips refuses.
    static func adopting(_ pixels: UnsafeMutableRawPointer, byteCount: Int, width: Int, height: Int, bands: Int,
                         metadataOf header: VipsImage) -> VipsImage? {
        cvips_image_from_owned_pixels(pixels, byteCount, Int32(width), Int32(height), Int32(bands), header.pointer)
            .map { VipsImage(owning: $0) }
    }
}

extension VipsImage {
    /// Every pixel computed and copied out, row by row in the image's own sample format;
    /// `origin` names the image in the error when libvips cannot.
    func memoryBytes(origin: String) throws(VipsError) -> [UInt8] {
        var size = 0
        let (memory, message) = VipsErrorLog.call(exclusive: false, { vips_image_write_to_memory(pointer, &size) }, failed: { $0 == nil })
        guard let memory else { throw .decodeFailed(origin: origin, message: message ?? "libvips could not read its pixels") }
        defer { g_free(memory) }
        return Array(UnsafeRawBufferPointer(start: memory, count: size))
    }

    /// Every pixel as 8-bit sRGB (with its alpha, if it has one), computed and copied out: what
    /// SSIMULACRA2 reads.
    func srgbBytes(origin: String) throws(VipsError) -> (bytes: [UInt8], width: Int, height: Int, bands: Int) {
        var rgb = self
        if !rgb.isSRGB || rgb.colourBands != 3 { rgb = try rgb.colourspace(VIPS_INTERPRETATION_sRGB) }
        if !rgb.isEightBit { rgb = try rgb.cast(VIPS_FORMAT_UCHAR) }
        return (try rgb.memoryBytes(origin: origin), rgb.width, rgb.height, rgb.bands)
    }

    /// The direct path's 8-bit RGB (or grey) pixels as a libvips image, with their ICC profile:
    /// for a saver only libvips has (JPEG XL).
    static func copying(_ pixels: [UInt8], width: Int, height: Int, bands: Int, icc: [UInt8]?) -> VipsImage? {
        pixels.withUnsafeBytes { bytes in
            (icc ?? []).withUnsafeBytes { profile in
                cvips_image_from_copied_srgb(bytes.baseAddress, bytes.count, Int32(width), Int32(height), Int32(bands),
                                             profile.baseAddress, profile.count)
            }
        }.map { VipsImage(owning: $0) }
    }
}

extension VipsArgumentValue {
    /// A loader's `access`: top to bottom once (little memory), or any region in any order.
    static func access(sequential: Bool) -> VipsArgumentValue {
        .enumeration(Int((sequential ? VIPS_ACCESS_SEQUENTIAL : VIPS_ACCESS_RANDOM).rawValue))
    }

    /// A loader's `fail_on`.
    static func failOn(_ level: DecodeOptions.FailOn) -> VipsArgumentValue {
        .enumeration(Int(level.level.rawValue))
    }
}
