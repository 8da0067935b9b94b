import Foundation
import Logging
import WorkbenchCore
import WorkbenchDirect
import WorkbenchJPEG

/// Decoding: loader choice, limits, orientation and colour normalisation.
enum VipsDecoding {
    /// Fails a progressive JPEG whose scans cannot hold its blocks before libjpeg decodes it
    /// whole: libjpeg would make up every missing block (100 MP of grey for a 233-byte file),
    /// which only a decode that accepts damage (`failOn` "none") asks for.
    static func checkProgressiveData(_ bytes: Bytes, _ options: DecodeOptions) throws(VipsError) {
        guard options.failOn != .none, bytes.data.withUnsafeBytes({ JPEGFrameHeader($0)?.buffersCoefficients }) == true else { return }
        let outcome = bytes.data.withUnsafeBytes { data in Result { () throws(ProgressiveRefusal) in try ProgressiveJPEG.checkStructure(data) } }
        if case .failure(let refusal) = outcome, refusal.reason == .truncated {
            throw .decodeFailed(origin: bytes.origin, message: "the progressive JPEG is cut short: \(refusal)")
        }
    }

    /// Refuses a JPEG whose decode by libjpeg would take more memory than the decode's
    /// `maxMemory` (a progressive JPEG: every coefficient of the image, whatever the scale).
    static func checkMemory(_ source: DecodedSource) throws(VipsError) {
        guard let header = source.bytes.data.withUnsafeBytes({ JPEGFrameHeader($0) }) else { return }
        let needed = header.libjpegCoefficientBytes
        guard needed <= source.options.maxMemory else {
            throw .tooMuchMemory(origin: source.bytes.origin, width: header.width, height: header.height, needed: needed, limit: source.options.maxMemory)
        }
    }

    /// Fails a JPEG of more scans than the decode allows, before any decoder reads it.
    static func checkScans(_ bytes: Bytes, _ options: DecodeOptions) throws(VipsError) {
        guard FormatSniffer.loader(for: bytes.data) == "jpegload_buffer" else { return }
        let scans = bytes.data.withUnsafeBytes { JPEGScanCount.count(in: $0, upTo: options.maxScans) }
        guard scans <= options.maxScans else { throw .tooManyScans(origin: bytes.origin, limit: options.maxScans) }
    }

    /// What a decode of no bytes fails with (and `explain` says of such a file).
    static let emptyFile = "the file is empty (0 bytes)"

    /// `deferMemoryCheck`: a resize fused with this decode decodes from the bytes itself and
    /// checks the memory it will take then (our decoder may need far less than libjpeg).
    static func decode(_ bytes: Bytes, _ options: DecodeOptions, node: String = "decode", deferMemoryCheck: Bool = false) throws(VipsError) -> VipsImage {
        guard bytes.file != nil || !bytes.data.isEmpty else {
            throw .decodeFailed(origin: bytes.origin, message: emptyFile)
        }
        var sequential = options.sequential
        let pages = try pagesArgument(bytes, options.pages)
        var image = try VipsImage.open(bytes, sequential: sequential, failOn: options.failOn, pages: pages)
        // The header is read before any pixel is decoded, so a bomb costs nothing.
        // All pages count: a thousand frames of a small GIF hold as much as one huge image.
        guard image.width * image.height <= options.maxPixels else {
            throw .tooManyPixels(origin: bytes.origin, width: image.width, height: image.height, limit: options.maxPixels)
        }
        let storedWidth = image.width, storedHeight = image.height
        if !deferMemoryCheck {
            try checkMemory(DecodedSource(bytes: bytes, options: options, colourManaged: false, orientation: 1, storedWidth: storedWidth,
                                          storedHeight: storedHeight, node: node))
            try checkProgressiveData(bytes, options)
        }
        // Turning an image reads it out of order: decode for random access then.
        let orientation = options.autorotate ? image.metadata(int: "orientation") ?? 1 : 1
        if orientation > 1 && sequential {
            sequential = false
            image = try VipsImage.open(bytes, sequential: false, failOn: options.failOn, pages: pages)
        }
        if orientation > 1 { image = try VipsOperationCall.image("autorot", image) }
        // An sRGB image tagged with an sRGB profile needs no conversion.
        let colourManaged = !image.isGrey && ColourProfile.embedded(in: image).map {
            !(image.isSRGB && ColourProfile.describesSRGB($0))
        } ?? false
        if options.toSRGB { image = try normalise(image, colourManaged: colourManaged) }
        return image.withOrigin(DecodedSource(bytes: bytes, options: options, colourManaged: colourManaged,
                                              orientation: orientation, storedWidth: storedWidth,
                                              storedHeight: storedHeight, node: node))
    }

    /// 8-bit sRGB for colour (ICC profiles honoured, CMYK through libvips' default CMYK profile
    /// when it has none), 8-bit grey for grey; alpha is kept.
    static func normalise(_ image: VipsImage, colourManaged: Bool = false) throws(VipsError) -> VipsImage {
        var result = image
        if colourManaged {
            result = try VipsOperationCall.image("icc_transform", result, ["output_profile": .string("srgb"), "embedded": .bool(true),
                                                                           "intent": .string("perceptual")])
        } else if image.isGrey16 {
            result = try VipsOperationCall.image("colourspace", result, ["space": .string("b-w")])
        } else if !image.isGrey && !image.isSRGB {
            result = try VipsOperationCall.image("colourspace", result, ["space": .string("srgb")])
        }
        if !result.isEightBit {
            result = try VipsOperationCall.image("cast", result, ["format": .string("uchar")])
        }
        return result
    }

    /// The loader's `n` argument: nothing for the first page (every loader's default), -1 for
    /// all pages of a loader that has pages; single-page formats ignore the request.
    private static func pagesArgument(_ bytes: Bytes, _ pages: Int) throws(VipsError) -> Int32 {
        guard pages != 1, let loader = VipsLoaders.name(bytes),
              VipsIntrospection.operation(loader)?.arguments.contains(where: { $0.name == "n" }) == true else { return 0 }
        return Int32(pages)
    }
}
