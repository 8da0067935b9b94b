import Foundation
import Logging
import WorkbenchCore
import WorkbenchDirect
import WorkbenchJPEG

/// Decoding shrunk on load: the thumbnail fused with its decode, JPEGs at a DCT scale (progressive
/// ones by our decoder), PNGs by our PNG decoder, everything else by libvips' thumbnail.
extension VipsDecoding {
    /// Decode and resize in one step from the bytes (shrink-on-load: JPEG decodes at 1/2, 1/4 or
    /// 1/8 scale, WebP and HEIF at a smaller size), with the decode's own settings. Nil when the
    /// settings need the full decode (all pages, colours kept as stored).
    /// A JPEG libjpeg decodes may be decoded here, to be reduced by our passes: cancelling
    /// `cancellation` stops that, and `warned` hears what the decoder worked around.
    static func thumbnail(_ source: DecodedSource, _ request: ThumbnailRequest, cancellation: CancellationToken? = nil,
                          warned: (String) -> Void = { _ in }) throws(VipsError) -> VipsImage? {
        guard source.options.toSRGB, source.options.pages == 1 else { return nil }
        if let image = try scaledJPEGThumbnail(source, request, cancellation: cancellation, warned: warned) { return image }
        var origin = source
        if let image = try pngThumbnail(source, request, declined: &origin.pngDeclined) { return image }
        try checkMemory(source)
        var named = request.arguments
        named["buffer"] = .blob(source.bytes.data)
        // libvips 8.14's thumbnail_buffer does not hand its `fail_on` to the loader (a truncated
        // JPEG then passes); the loader's option string does reach it.
        named["option_string"] = .string("fail_on=" + source.options.failOn.rawValue)
        named["no_rotate"] = .bool(!source.options.autorotate)
        if source.colourManaged { named["export_profile"] = .string("srgb") }
        let image = try VipsOperationCall.image("thumbnail_buffer", nil, named)
        return try normalise(image.withOrigin(origin))
    }

    /// JPEG at the smallest DCT scale (1/2, 1/4, 1/8) that leaves `headroom` times the box, then
    /// libvips' high-quality reduce for the rest — libvips' own choice at headroom 2, but with a
    /// progressive file decoded by our decoder, which keeps only the coefficients that scale
    /// needs. Headroom 1 (`fastShrink`) spends less CPU for about 0.5 dB PSNR. Nil when it does
    /// not apply (not a JPEG, turned by EXIF, no shrinking possible).
    private static func scaledJPEGThumbnail(_ source: DecodedSource, _ request: ThumbnailRequest, cancellation: CancellationToken?,
                                            warned: (String) -> Void) throws(VipsError) -> VipsImage? {
        let geometry = request.geometry(of: .init(source.storedWidth, source.storedHeight))
        let shrink = geometry.jpegShrink
        guard source.orientation == 1, FormatSniffer.loader(for: source.bytes.data) == "jpegload_buffer", shrink > 1 else { return nil }
        var loaded = try VipsOperationCall.image("jpegload_buffer", nil, [
            "buffer": .blob(source.bytes.data), "shrink": .int(shrink),
            "access": .access(sequential: true), "fail_on": .failOn(source.options.failOn),
        ])
        // From 1/4 our decoder keeps less than libjpeg and is faster. At 1/2 it would keep 49 of
        // 64 coefficients (chroma all 64) and cost more CPU (W: 2.1 s against 1.45 s), unless
        // the reduction that follows is 2× or more: then only the frequencies below 4 matter
        // (`lowPass`, 16 a block), a third of libjpeg's memory — a 10 MP progressive photo
        // held 30 MB of coefficients in libjpeg, and W's peak was two of them at once.
        let lowPass = geometry.factor / Double(shrink) >= 2 && keepsLowPass(source, shrink: shrink)
        var origin = source
        origin.jpegShrink = shrink
        // What `thumbnail_image` would then do, when all it does is reduce: our passes do it as
        // the pixels come from our decoder (libvips' horizontal pass is scalar: 10 % of W's CPU).
        // (The geometry's loaded size is libvips' own; should they ever part, libvips' thumbnail decides.)
        let reduction = source.colourManaged || geometry.loaded != .init(loaded.width, loaded.height) ? nil : geometry.reduction
        if shrink >= 4 || lowPass, let scaled = try progressive(source, shrink: shrink, header: loaded, lowPass: lowPass, reducing: reduction) {
            if scaled.reduced {
                origin.reducedByOurPasses = true
                return try normalise(scaled.image.withOrigin(origin))
            }
            loaded = scaled.image
        } else {
            try checkMemory(source)
            if let reduction, let reduced = try reducedByOurPasses(loaded.withOrigin(origin), by: reduction, cancellation: cancellation, warned: warned) {
                origin.reducedByOurPasses = true
                return try normalise(reduced.withOrigin(origin))
            }
        }
        var named = request.arguments
        if source.colourManaged { named["export_profile"] = .string("srgb") }
        return try normalise(VipsOperationCall.image("thumbnail_image", loaded.withOrigin(origin), named))
    }

    /// The shorter side, at the loaded scale, below which libjpeg decodes a progressive file.
    static let smallestProgressiveSide = 16

    /// Whether a low-pass decode leaves the thumbnail as libvips makes it. Its chroma, decoded at
    /// the smallest scale and upsampled, is off near the image's edges (a 4:2:0 strip 9 pixels
    /// tall shifted 7 levels at 1/4) and, through a wide-gamut profile's matrix, in saturated
    /// colours (ProPhoto at 1/4: 38 dB from libvips): so only photos without a profile whose
    /// shorter side keeps 256 pixels at the loaded scale, where the memory it saves matters and
    /// the edges are a small part of the reduction that follows.
    static func keepsLowPass(_ source: DecodedSource, shrink: Int) -> Bool {
        !source.colourManaged && min(source.storedWidth, source.storedHeight) / max(shrink, 1) >= 256
    }

    /// A PNG's pixels by our decoder (`PNGDecoder`: libdeflate inflates in a third of zlib's
    /// time, and inflating was most of a PNG thumbnail's cost), everything else as libvips reads
    /// it from the header, then our premultiplied reduce for an 8-bit image with alpha
    /// (`premultipliedReduction`, within a level of libvips') or libvips' thumbnail as for any
    /// image (the same result as `thumbnail_buffer`'s). Nil when not a PNG, or when the decoder
    /// leaves the file to libpng, with the reason in `declined` (for the report) and at debug
    /// level (`--verbose`).
    private static func pngThumbnail(_ source: DecodedSource, _ request: ThumbnailRequest,
                                     declined reason: inout String?) throws(VipsError) -> VipsImage? {
        guard FormatSniffer.loader(for: source.bytes.data) == "pngload_buffer" else { return nil }
        let header = try VipsOperationCall.image("pngload_buffer", nil, [
            "buffer": .blob(source.bytes.data), "access": .access(sequential: true), "fail_on": .failOn(source.options.failOn),
        ])
        let outcome = source.bytes.data.withUnsafeBytes { bytes in
            Result { () throws(PNGRefusal) in try PNGDecoder(bytes, maxPixels: source.options.maxPixels) }
        }
        let decoded: PNGDecoder
        switch outcome {
        case .success(let image): decoded = image
        case .failure(let refusal):
            declined(source, by: "PNG decoder", because: "\(refusal)")
            reason = "\(refusal)"
            return nil
        }
        var origin = source
        origin.decodedByPNGDecoder = true
        if let reduced = premultipliedReduction(decoded, request, header: header, source: source) {
            origin.reducedPremultiplied = true
            return try normalise(reduced.withOrigin(origin))
        }
        guard let image = adopted((decoded.width, decoded.height, decoded.bands), decoded.byteCount, decoded.handOver,
                                  header: header, source: source, by: "PNG decoder") else { return nil }
        var named = request.arguments
        named["no_rotate"] = .bool(!source.options.autorotate)
        if source.colourManaged { named["export_profile"] = .string("srgb") }
        return try normalise(VipsOperationCall.image("thumbnail_image", image.withOrigin(origin), named))
    }

    /// A PNG with alpha reduced by `Resampler.reducePremultiplied` (libvips' thumbnail premultiplies
    /// into a float image and reduces that, most of a product shot's thumbnail cost), by the
    /// factors libvips' thumbnail would use, with the header's metadata. Nil when the thumbnail
    /// does more than reduce: crops, enlarges, turns, converts colour, or keeps the size.
    private static func premultipliedReduction(_ decoded: PNGDecoder, _ request: ThumbnailRequest, header: VipsImage,
                                               source: DecodedSource) -> VipsImage? {
        guard premultipliedRefusal(header, colourManaged: source.colourManaged, orientation: source.orientation) == nil,
              decoded.bytesPerSample == 1, decoded.width == header.width, decoded.height == header.height, decoded.bands == header.bands,
              let shrink = request.geometry(of: .init(decoded.width, decoded.height), dctScaled: false).reduction,
              let reduced = decoded.withSamples({ Resampler.reducePremultiplied($0, width: decoded.width, height: decoded.height,
                                                                                 bands: decoded.bands, shrink: shrink) }) ?? nil
        else { return nil }
        return VipsImage.adopting(reduced.pixels, byteCount: reduced.width * reduced.height * decoded.bands, width: reduced.width,
                                  height: reduced.height, bands: decoded.bands, metadataOf: header)
    }

    /// Why a PNG with this header is left to libvips' thumbnail rather than reduced premultiplied
    /// (whatever its size), in words for `explain`; nil when it is not.
    static func premultipliedRefusal(_ header: VipsImage, colourManaged: Bool, orientation: Int) -> String? {
        guard header.bands == 2 || header.bands == 4, header.isEightBit else { return "it has no alpha, or 16-bit samples" }
        if orientation != 1 { return "it turns it upright (EXIF orientation \(orientation))" }
        if colourManaged { return "it converts its ICC profile to sRGB" }
        return nil
    }

    /// A progressive JPEG at 1/`shrink` scale by our own decoder, which keeps only the
    /// coefficients that scale needs (`ProgressiveJPEG`), with the metadata libvips read from its
    /// header; nil when that decoder does not take the file (libjpeg then decodes it, and the
    /// reason is logged at debug level: `--verbose`). Only when warnings may pass, as libjpeg's
    /// do at these settings: the decoder refuses what libjpeg would warn of. A file the decoder
    /// finds cut short fails here, unless the decode accepts damage (`failOn` "none"): libjpeg
    /// would make up the missing blocks, all of them for a huge header over a few bytes.
    /// `lowPass`: only the frequencies below 4 (`ProgressiveJPEG.decode`), for an image reduced
    /// by 2× or more after.
    /// `reducing`: the factors `thumbnail_image` would reduce the result by, done here with
    /// libvips' windows (`Resampler.reduceAsLibvips`) where they allow; `reduced` says so.
    static func progressive(_ source: DecodedSource, shrink: Int, header: VipsImage, lowPass: Bool = false,
                            reducing: (x: Double, y: Double)? = nil) throws(VipsError) -> (image: VipsImage, reduced: Bool)? {
        guard source.options.failOn == .none || source.options.failOn == .truncated else { return nil }
        // A strip a block or two tall at this scale is mostly edge, where our chroma upsampling
        // and libjpeg's may part ways; libjpeg decodes so few pixels in no time. (The 22-level
        // shift of a 1000×9 strip at 1/8 was the scale's choice, `jpegShrink`, not the decoder.)
        guard min(header.width, header.height) >= Self.smallestProgressiveSide else {
            declined(source, by: "progressive decoder", because: "\(header.width)×\(header.height) at 1/\(shrink) is under \(Self.smallestProgressiveSide) pixels on a side")
            return nil
        }
        let outcome = source.bytes.data.withUnsafeBytes { bytes in
            Result { () throws(ProgressiveRefusal) in
                try ProgressiveJPEG.decode(bytes, shrink: shrink, keeping: (header.width, header.height), memoryLimit: source.options.maxMemory,
                                           lowPass: lowPass)
            }
        }
        let scaled: ProgressiveJPEG
        switch outcome {
        case .success(let image): scaled = image
        case .failure(let refusal):
            if refusal.reason == .truncated && source.options.failOn != .none {
                throw .decodeFailed(origin: source.bytes.origin, message: "the progressive JPEG is cut short: \(refusal)")
            }
            if refusal.reason != .notProgressive { declined(source, by: "progressive decoder", because: "\(refusal.reason.rawValue): \(refusal)") }
            return nil
        }
        if let reducing, scaled.width == header.width, scaled.height == header.height, scaled.bands == header.bands,
           header.isEightBit, let baseAddress = scaled.buffer.bytes.baseAddress,
           let reduced = Resampler.reduceAsLibvips(baseAddress, width: scaled.width, height: scaled.height, bands: scaled.bands, shrink: reducing) {
            let count = reduced.width * reduced.height * scaled.bands
            guard let image = VipsImage.adopting(reduced.pixels, byteCount: count, width: reduced.width, height: reduced.height,
                                                 bands: scaled.bands, metadataOf: header) else { return nil }
            return (image, true)
        }
        return adopted((scaled.width, scaled.height, scaled.bands), scaled.buffer.bytes.count, scaled.buffer.handOver,
                       header: header, source: source, by: "progressive decoder").map { ($0, false) }
    }

    /// libjpeg's decode at a DCT scale, made now (in memory) and reduced by our passes with
    /// libvips' windows, with the metadata it carries; nil, leaving it to `thumbnail_image`,
    /// for what our passes do not take (alpha, 16 bits, a factor of 4 or more) or a decode over
    /// `reducedInMemoryLimit`, which libvips streams. Damage fails here as the evaluation would
    /// have failed later.
    private static func reducedByOurPasses(_ loaded: VipsImage, by reduction: (x: Double, y: Double), cancellation: CancellationToken?,
                                           warned: (String) -> Void) throws(VipsError) -> VipsImage? {
        guard loaded.isEightBit, loaded.bands == 1 || loaded.bands == 3, loaded.pixelBytes <= reducedInMemoryLimit,
              Resampler.reducesAsLibvips(width: loaded.width, height: loaded.height, shrink: reduction) else { return nil }
        let (decoded, warnings) = try loaded.inMemory(cancellation: cancellation)
        warnings.forEach(warned)
        guard let pixels = decoded.samples,
              let reduced = Resampler.reduceAsLibvips(pixels, width: decoded.width, height: decoded.height, bands: decoded.bands, shrink: reduction),
              let image = VipsImage.adopting(reduced.pixels, byteCount: reduced.width * reduced.height * decoded.bands, width: reduced.width,
                                             height: reduced.height, bands: decoded.bands, metadataOf: decoded) else { return nil }
        return image
    }

    /// The most bytes a JPEG's decode at its DCT scale is held in memory for our passes (a
    /// 1/2 decode of a 32 MP photo); a larger one streams through libvips' reduce.
    static let reducedInMemoryLimit = 48 << 20

    /// Pixels one of our decoders made, as an image with the metadata libvips read from `header`
    /// (libvips frees the pixels when the image closes); nil, with the reason under `--verbose`,
    /// when their size is not the one libvips expects.
    private static func adopted(_ size: (width: Int, height: Int, bands: Int), _ byteCount: Int, _ handOver: () -> UnsafeMutableRawPointer?,
                                header: VipsImage, source: DecodedSource, by decoder: String) -> VipsImage? {
        let sampleBytes = header.sampleBytes
        guard size.width == header.width, size.height == header.height, size.bands == header.bands,
              byteCount == size.width * size.height * size.bands * sampleBytes else {
            declined(source, by: decoder, because: "made \(size.width)×\(size.height)×\(size.bands) in \(byteCount) bytes, libvips expects \(header.width)×\(header.height)×\(header.bands) of \(sampleBytes)")
            return nil
        }
        guard let pixels = handOver() else { return nil }
        return VipsImage.adopting(pixels, byteCount: byteCount, width: size.width, height: size.height, bands: size.bands, metadataOf: header)
    }

    /// Says under `--verbose` why one of our decoders left a file to libvips' own loader.
    private static func declined(_ source: DecodedSource, by decoder: String, because reason: String) {
        VipsRuntime.warnings.withLock { $0 }?.debug("\(source.bytes.origin): \(decoder) declined (\(reason)); libvips decodes it")
    }
}
