import Foundation
import WorkbenchCore
import WorkbenchDirect

/// `encode` on the direct path: the plan's pixels to libjpeg, libwebp or libavif with libvips'
/// settings, or to libvips' JPEG XL saver as an image in memory.
extension EncodeStage {
    /// JPEG XL from the direct path's pixels: only libvips' saver writes it, so they become a
    /// libvips image in memory (RGB: a tree with a JPEG XL decodes RGB, not planes).
    func encodeJXL(_ direct: DirectImage, quality: Int, effort: Int, context: StageContext) throws -> Payload {
        guard let image = direct.vipsImage() else {
            throw WorkbenchError.unexpectedInput(node: context.nodeID, expected: "RGB pixels for JPEG XL (the plan decodes RGB for a tree with one)")
        }
        var options = options
        options[Self.qualityName] = .int(quality)
        options["effort"] = .int(effort)
        let (data, _) = try image.encode(format, options: options, cancellation: context.cancellation)
        return .bytes(Bytes(data, origin: context.item.source,
                            image: EncodedImage(width: direct.width, height: direct.height, format: format.name)))
    }

    /// The direct path's JPEG or WebP (the plan's `DirectChain`), with libvips' settings: for
    /// JPEG, libjpeg and the EXIF block libvips writes for stripped metadata, so the file is what
    /// the libvips path would write; for WebP, libwebp with the same EXIF block and profile.
    func encodeDirect(_ direct: DirectImage, context: StageContext) throws -> Payload {
        let quality: Int
        var avif: AVIFCodec.Settings?
        switch directForm {
        case .jpegEncode(let q)?, .webpEncode(let q)?: quality = q
        case .jxlEncode(let q, let effort)?:
            return try encodeJXL(direct, quality: q, effort: effort, context: context)
        case .avifEncode(let q, let speed)?:
            quality = q
            // One thread: the pool's workers already encode one photo each.
            avif = AVIFCodec.Settings(quality: q, speed: speed, threads: 1, encoder: .aom)
        default: throw WorkbenchError.unexpectedInput(node: context.nodeID, expected: "an image libvips made (the direct path writes JPEG, WebP, AVIF and JPEG XL at a quality alone)")
        }
        let data: Data
        // The EXIF block libvips writes for stripped metadata, in a JPEG's APP1 or a WebP's EXIF chunk.
        let exif = ExifBlock.stripped(width: direct.width, height: direct.height)
        switch (format.name, direct.pixels) {
        case ("avif", .interleaved(let image)): data = try AVIFCodec.encode(image, avif ?? AVIFDefaults.settings, icc: direct.profile, exif: exif)
        case ("avif", .planes(let image)): data = try AVIFCodec.encode(image, avif ?? AVIFDefaults.settings, icc: direct.profile, exif: exif)
        case ("webp", .interleaved(let image)): data = try WebPCodec.encode(image, quality: quality, icc: direct.profile, exif: exif)
        case ("webp", .planes(let image)): data = try WebPCodec.encode(image, quality: quality, icc: direct.profile, exif: exif)
        case ("jpeg", .interleaved(let image)): data = try JPEGCodec.encode(image, quality: quality, exif: exif, icc: direct.profile)
        case ("jpeg", .planes(let image)): data = try JPEGCodec.encode(image, quality: quality, exif: exif, icc: direct.profile)
        default:
            // The planner gives the direct path's pixels only to encodes with a direct form.
            throw WorkbenchError.unexpectedInput(node: context.nodeID, expected: "an image libvips made (the direct path writes JPEG, WebP, AVIF and JPEG XL)")
        }
        return .bytes(Bytes(data, origin: context.item.source,
                            image: EncodedImage(width: direct.width, height: direct.height, format: format.name)))
    }
}
