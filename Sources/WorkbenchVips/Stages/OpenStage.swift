import WorkbenchCore
import WorkbenchDirect
import WorkbenchJPEG

/// `decode`: opens encoded bytes (the format sniffed from the content) and decides how they are
/// decoded — a lazy libvips image; or, as the plan says, the bytes left to the resize that
/// alone reads them (shrink-on-load, `ShrinkableImage`) or a JPEG left to the direct path
/// (`DirectSource`). Only the first is a decode here: the others happen in the resize.
struct OpenStage: Stage {
    /// The op's parameters, each declared once and bound to its field.
    struct Parameters: OpParameters {
        enum Access: String, CaseIterable, Sendable { case auto, sequential, random }
        enum Pages: String, CaseIterable, Sendable { case first, all }
        enum Colourspace: String, CaseIterable, Sendable { case srgb, keep }
        enum Engine: String, CaseIterable, Sendable { case auto, libvips }

        var failOn = DecodeOptions.FailOn.truncated
        var access = Access.auto
        var maxPixels = 100_000_000
        var maxMemory = ProgressiveJPEG.defaultMemoryLimit >> 20
        var maxScans = DecodeOptions.defaultMaxScans
        var pages = Pages.first
        var autorotate = true
        var colourspace = Colourspace.srgb
        var engine = Engine.auto

        static let bindings: [ParameterBinding<Self>] = [
            .choice("failOn", \.failOn,
                    "How much damage fails the item: \"truncated\" fails on cut-off files, \"error\" on any decoder error.", .init(aliases: ["fail_on"], recipeName: "fail_on")),
            .choice("access", \.access,
                    "\"sequential\" streams top to bottom with little memory; \"random\" allows any later use; \"auto\" streams when the graph reads the image once, top to bottom."),
            .int("maxPixels", \.maxPixels, 1...Int(Int32.max),
                 "Refuse images with more pixels than this (decompression bombs; all pages count); checked from the header."),
            .int("maxMemory", \.maxMemory, 1...1_048_576,
                 "Refuse a JPEG whose decode would hold more than this many MiB (libjpeg keeps every coefficient of a progressive JPEG: 2 bytes a sample); checked from the header, before any memory is taken.", .init(recipeOmitsDefault: true)),
            .int("maxScans", \.maxScans, 1...100_000,
                 "Refuse a JPEG of more scans than this (a progressive JPEG from a camera or an editor has about 10; a crafted one can have thousands, each a pass over the whole image); counted from its markers before it is decoded.",
                 .init(recipeOmitsDefault: true)),
            .choice("pages", \.pages,
                    "Of a multi-page image (animated GIF or WebP, TIFF, HEIF): \"first\" page (frame), which the item's report notes, or \"all\" stacked, kept as an animation by GIF and WebP encoding."),
            .bool("autorotate", \.autorotate, "Turn the image upright by its EXIF orientation."),
            .choice("colourspace", \.colourspace,
                    "\"srgb\": colour images become 8-bit sRGB through their ICC profile (CMYK, 16-bit, Lab …), grey ones 8-bit grey, alpha kept; \"keep\": as stored.", .init(aliases: ["colorspace"])),
            .choice("engine", \.engine,
                    "\"auto\": a JPEG followed only by thumbnails (one, or several made from one another) and plain JPEG or WebP encodes takes the direct path (libjpeg, libwebp and our own resampler, no libvips object per image) when the file allows; \"libvips\": always libvips. `--verbose` and the report's `decodes` say which ran.", .init(recipeOmitsDefault: true)),
        ]

        /// What libvips is asked for; `readOnce`: the plan found one reader, reading top to bottom.
        func decodeOptions(readOnce: Bool) -> DecodeOptions {
            DecodeOptions(failOn: failOn, sequential: access == .sequential || (access == .auto && readOnce), maxPixels: maxPixels,
                          pages: pages == .all ? -1 : 1, autorotate: autorotate, toSRGB: colourspace == .srgb, maxMemory: maxMemory << 20,
                          maxScans: maxScans)
        }
    }

    static let spec = OpSpec(
        name: "decode", summary: "Decodes bytes into an image (JPEG, PNG, WebP, TIFF, GIF, HEIF, … sniffed from the content).",
        input: .bytes, output: .image, defaultQueue: "cpu", execution: .cpu,
        parameters: Parameters.specs,
        shrinksOnLoad: true)

    static let definition = OpDefinition(spec) { values, facts in
        let parameters = Parameters(values)
        return OpenStage(options: parameters.decodeOptions(readOnce: facts.outputIsReadOnce),
                           fusedWithResize: facts.decodedByResize,
                           direct: parameters.engine == .auto && facts.direct != nil,
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
        direct ? ["with the fits and encodes after it, the direct path where the file allows: libjpeg at a DCT scale, our Lanczos-3 with libvips' windows, libjpeg's, libwebp's or libavif's encoder (a libvips image only for JPEG XL and quality targets)"] : []
    }

    func run(_ inputs: StageInputs, context: StageContext) throws -> Payload {
        guard case .bytes(let bytes)? = inputs.first else {
            throw WorkbenchError.unexpectedInput(node: context.nodeID, expected: "bytes")
        }
        try VipsDecoding.checkScans(bytes, options)
        if direct {
            guard FormatSniffer.loader(for: bytes.data) == "jpegload_buffer" else {
                context.logger.debug("\(context.item.name): libvips decodes it (not a JPEG)")
                return .image(try decodedByLibvips(bytes, context))
            }
            guard let header = JPEGCodec.header(bytes.data) else {
                context.logger.debug("\(context.item.name): libvips decodes it (libjpeg cannot read its header)")
                return .image(try decodedByLibvips(bytes, context))
            }
            switch DirectSource.admission(header, bytes, options) {
            case .declined(let reason):
                context.logger.debug("\(context.item.name): libvips decodes it (\(reason))")
                return .image(try decodedByLibvips(bytes, context))
            case .taken(let colour):
                return .image(DirectSource(bytes: bytes, options: options, header: header, node: context.nodeID,
                                           keepsPlanes: encodesSubsampled && header.components == 3, colour: colour))
            }
        }
        return .image(try decodedByLibvips(bytes, context))
    }

    private func decodedByLibvips(_ bytes: Bytes, _ context: StageContext) throws -> any ImageHandle {
        let image = try VipsDecoding.decode(bytes, options, node: context.nodeID, deferMemoryCheck: fusedWithResize)
        // An animation (GIF, WebP, HEIF sequence) comes out as its first frame unless asked:
        // the report says so rather than let a still pass for the whole.
        if options.pages == 1, let frames = image.metadata(int: "n-pages"), frames > 1 {
            context.note("the file has \(frames) frames (pages); the first is kept — give the decode \"pages\": \"all\" for every one")
        }
        if fusedWithResize, let source = image.origin { return ShrinkableImage(image, source: source) }
        context.recordDecode("decode: loading the whole image (\(image.width)×\(image.height))")
        return image
    }
}
