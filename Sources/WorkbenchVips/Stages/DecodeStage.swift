import WorkbenchCore
import WorkbenchDirect
import WorkbenchJPEG

/// `decode`: encoded bytes to a lazy libvips image; the format is sniffed from the content.
struct DecodeStage: Stage {
    /// The op's parameters, named once.
    enum Parameter: String, ParameterName {
        case failOn, access, maxPixels, maxMemory, pages, autorotate, colourspace, engine
    }

    static let spec = OpSpec(
        name: "decode", summary: "Decodes bytes into an image (JPEG, PNG, WebP, TIFF, GIF, HEIF, … sniffed from the content).",
        input: .bytes, output: .image, defaultQueue: "cpu", execution: .cpu,
        parameters: [
            ParameterSpec(Parameter.failOn, .choice(DecodeOptions.FailOn.allCases.map(\.rawValue)), default: .string("truncated"), aliases: ["fail_on"],
                          recipeName: "fail_on",
                          "How much damage fails the item: \"truncated\" fails on cut-off files, \"error\" on any decoder error."),
            ParameterSpec(Parameter.access, .choice(["auto", "sequential", "random"]), default: .string("auto"),
                          "\"sequential\" streams top to bottom with little memory; \"random\" allows any later use; \"auto\" streams when the graph reads the image once, top to bottom."),
            ParameterSpec(Parameter.maxPixels, .int(1...Int(Int32.max)), default: .int(100_000_000),
                          "Refuse images with more pixels than this (decompression bombs; all pages count); checked from the header."),
            ParameterSpec(Parameter.maxMemory, .int(1...1_048_576), default: .int(ProgressiveJPEG.defaultMemoryLimit >> 20), recipeOmitsDefault: true,
                          "Refuse a JPEG whose decode would hold more than this many MiB (libjpeg keeps every coefficient of a progressive JPEG: 2 bytes a sample); checked from the header, before any memory is taken."),
            ParameterSpec(Parameter.pages, .choice(["first", "all"]), default: .string("first"),
                          "Of a multi-page image (animated GIF or WebP, TIFF, HEIF): \"first\" page (frame), or \"all\" stacked, kept as an animation by GIF and WebP encoding."),
            ParameterSpec(Parameter.autorotate, .bool, default: .bool(true), "Turn the image upright by its EXIF orientation."),
            ParameterSpec(Parameter.colourspace, .choice(["srgb", "keep"]), default: .string("srgb"), aliases: ["colorspace"],
                          "\"srgb\": colour images become 8-bit sRGB through their ICC profile (CMYK, 16-bit, Lab …), grey ones 8-bit grey, alpha kept; \"keep\": as stored."),
            ParameterSpec(Parameter.engine, .choice(["auto", "libvips"]), default: .string("auto"), recipeOmitsDefault: true,
                          "\"auto\": a JPEG followed only by a thumbnail and a JPEG encode takes the direct path (libjpeg and our own resampler, no libvips object per image) when the file allows; \"libvips\": always libvips. `--verbose` says which ran."),
        ],
        shrinksOnLoad: true)

    static let definition = OpDefinition(spec) { p, facts in
        let access = p.word(Parameter.access)
        return DecodeStage(options: DecodeOptions(
            failOn: DecodeOptions.FailOn(rawValue: p.word(Parameter.failOn)) ?? .truncated,
            sequential: access == "sequential" || (access == "auto" && facts.outputIsReadOnce),
            maxPixels: p.integer(Parameter.maxPixels),
            pages: p.word(Parameter.pages) == "all" ? -1 : 1,
            autorotate: p.bool(Parameter.autorotate) != false,
            toSRGB: p.word(Parameter.colourspace) != "keep",
            maxMemory: p.integer(Parameter.maxMemory) << 20),
            fusedWithResize: facts.decodedByResize,
            direct: p.word(Parameter.engine) != "libvips" && facts.direct != nil,
            encodesSubsampled: facts.direct?.encodesSubsampled == true)
    }

    let options: DecodeOptions
    /// The plan fused this decode with the resize that alone reads it: hand it the bytes too.
    var fusedWithResize = false
    /// What follows is a chain the direct path can run (the plan's `DirectChain`).
    var direct = false
    /// That chain's encode writes 4:2:0, so a YCbCr file's planes can go straight through.
    var encodesSubsampled = false

    var planNotes: [String] {
        direct ? ["with the chain after it, the direct path where the file allows: libjpeg at a DCT scale, our Lanczos-3, libjpeg's encoder (no libvips image)"] : []
    }

    func run(_ inputs: StageInputs, context: StageContext) throws -> Payload {
        guard case .bytes(let bytes)? = inputs.first else {
            throw WorkbenchError.unexpectedInput(node: context.nodeID, expected: "bytes")
        }
        if direct {
            guard FormatSniffer.loader(for: bytes.data) == "jpegload_buffer" else {
                context.logger.debug("\(context.item.name): libvips decodes it (not a JPEG)")
                return .image(try decodedByLibvips(bytes, context))
            }
            guard let header = JPEGCodec.header(bytes.data) else {
                context.logger.debug("\(context.item.name): libvips decodes it (libjpeg cannot read its header)")
                return .image(try decodedByLibvips(bytes, context))
            }
            if let reason = DirectSource.refusal(header, bytes, options) {
                context.logger.debug("\(context.item.name): libvips decodes it (\(reason))")
                return .image(try decodedByLibvips(bytes, context))
            }
            return .image(DirectSource(bytes: bytes, options: options, header: header, node: context.nodeID,
                                       keepsPlanes: encodesSubsampled && header.components == 3))
        }
        return .image(try decodedByLibvips(bytes, context))
    }

    private func decodedByLibvips(_ bytes: Bytes, _ context: StageContext) throws -> any ImageHandle {
        let image = try VipsDecoding.decode(bytes, options, node: context.nodeID, deferMemoryCheck: fusedWithResize)
        if fusedWithResize, let source = image.origin { return ShrinkableImage(image, source: source) }
        context.logger.debug("\(context.item.name): decode: loading the whole image (\(image.width)×\(image.height))")
        return image
    }
}
