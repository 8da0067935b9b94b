import Foundation
import Synchronization
import WorkbenchCore
import WorkbenchDirect

/// `encode`: evaluates the image pipeline and encodes it with the chosen format's libvips saver.
/// Every option of every saver is available by libvips' name, checked against the chosen format.
struct EncodeStage: Stage {
    /// The op's own parameters, each declared once and bound to its field; the rest are the
    /// savers' options, named by libvips' introspection (`Q`, `effort`, …).
    struct Parameters: OpParameters {
        var format: String?
        var metadata = ParameterValue.string("strip")
        var target: ParameterValue?

        static let bindings: [ParameterBinding<Self>] = [
            // Every known format: one this libvips cannot write is refused by `check`, which says why.
            .string("format", \.format, "Output format.", type: .choice(EncodeFormat.known.map(\.name)), .init(required: true)),
            .value("metadata", \.metadata,
                   "What the file carries besides pixels: \"strip\" keeps only the ICC colour profile (no EXIF, GPS, serial numbers, embedded preview, XMP or IPTC), \"keep\" everything, or a list of \"icc\", \"exif\", \"xmp\", \"iptc\" to keep.",
                   type: .anyOf([.choice(["strip", "keep"]), .flags(MetadataKind.allCases.map(\.rawValue))])),
            .value("target", \.target, EncodeTarget.summary, type: .options(EncodeTarget.fields)),
        ]
    }

    /// The op as the savers loaded now declare it: HEIF's options join when its module does.
    static var definition: OpDefinition {
        let generation = VipsModules.generation
        return made.withLock { made in
            if let (built, definition) = made, built == generation { return definition }
            let definition = makeDefinition()
            made = (generation, definition)
            return definition
        }
    }

    private static let made = Mutex<(generation: Int, definition: OpDefinition)?>(nil)

    private static func makeDefinition() -> OpDefinition {
        let spec = OpSpec(
            name: "encode", summary: "Evaluates the image and encodes it (JPEG, PNG, WebP, TIFF, GIF, HEIF, AVIF, JPEG XL). One encode repeated over formats gives each format its own options in a block named by it: \"avif\": {\"Q\": 60, \"effort\": 4}. JPEG has no transparency: an image with alpha is flattened onto \"background\", white unless given (libvips' own default is black), and the run's report notes it once. AVIF defaults to Q 51 and effort 3 (not libvips' 50 and 4): about libvips' bytes and quality in a third of its CPU, measured with SSIMULACRA2; a JPEG's AVIF goes straight from its planes to libavif on the direct path. \"target\": {\"ssimulacra2\": 80} searches each output's quality for a score or a byte budget instead of a fixed Q.",
            input: .image, output: .bytes, defaultQueue: "cpu", execution: .cpu,
            parameters: Parameters.specs + saverOptions(of: EncodeFormat.loaded) + formatBlocks(of: EncodeFormat.loaded),
            readsSequentially: true,
            directForm: { p in
                // Exactly what libvips' own settings would write: nothing but a quality (and, for
                // AVIF, an effort).
                let own = Parameters(p)
                let values = saverValues(p, format: own.format)
                let allowed: Set = own.format == "avif" || own.format == "jxl" ? [qualityName, "effort"] : [qualityName]
                guard Set(values.keys).isSubset(of: allowed), own.metadata == .string("strip") else { return nil }
                if EncodeTarget(own.target) != nil {
                    guard let format = own.format, EncodeTarget.formats.contains(format) else { return nil }
                    return .searchedEncode(format: format)
                }
                func int(_ name: String) -> Int? { if case .int(let value)? = values[name] { value } else { nil } }
                switch own.format {
                case "jpeg": return .jpegEncode(quality: int(qualityName) ?? defaultQuality)
                case "webp": return .webpEncode(quality: int(qualityName) ?? defaultQuality)
                case "avif": return AVIFDefaults.form(quality: int(qualityName), effort: int("effort"))
                case "jxl": return .jxlEncode(quality: int(qualityName) ?? defaultQuality, effort: int("effort") ?? EncodeDefaults.jxlEffort)
                default: return nil
                }
            },
            heldBytes: { p, pixels in
                heldBytes(format: Parameters(p).format, pixels: pixels) + (EncodeTarget(Parameters(p).target) != nil ? EncodeTarget.heldBytes(pixels: pixels) : 0)
            },
            check: check)
        return OpDefinition(spec) { p in
            let own = Parameters(p)
            let format = own.format.flatMap(EncodeFormat.named) ?? EncodeFormat.known[0]
            var options: [String: VipsArgumentValue] = [:]
            let values = saverValues(p, format: format.name)
            // `metadata` decides what the file keeps; libvips' `strip` would take the ICC profile too.
            for argument in format.options where argument.name != "strip" {
                if let value = values[argument.name], let converted = VipsOperationStage.convert(value, for: argument) {
                    options[argument.name] = converted
                }
            }
            for (name, value) in EncodeDefaults.options(for: format.name) where options[name] == nil { options[name] = .int(value) }
            return EncodeStage(format: format, options: options, keptMetadata: keptMetadata(own.metadata), directForm: spec.directForm?(p),
                               target: EncodeTarget(own.target))
        }
    }

    /// What a saver holds while it encodes an image of `pixels` pixels, for the run's memory
    /// check: libjpeg streams rows (the file is what it keeps); libwebp converts the whole
    /// picture to ARGB and YUV first; libaom holds its encoder state (about 90 MiB at any size)
    /// and frames; GIF quantises the whole image; the others hold a copy at most.
    static func heldBytes(format: String?, pixels: Int) -> Int {
        switch format {
        case "webp": return 8 * pixels
        case "heif", "avif": return (96 << 20) + 8 * pixels
        case "jxl": return (16 << 20) + 48 * pixels
        case "gif": return 4 * pixels
        case "png", "tiff": return 3 * pixels
        default: return pixels / 2
        }
    }

    /// libvips 8.14's PNG saver reads past the end of its buffers when asked for 16 bits from an
    /// 8-bit image that carries an ICC profile (garbage in the file, or a crash; found by
    /// fuzz-graphs). Given 16-bit pixels it is fine, so 8-bit images are widened here first:
    /// through the colour space where it has a 16-bit form (values × 257), else by a shift.
    private func widenedForSixteenBitPNG(_ image: VipsImage) throws(VipsError) -> VipsImage {
        guard format.name == "png", case .int(16)? = options["bitdepth"], image.formatName == "uchar" else { return image }
        switch image.interpretationName {
        case "srgb": return try VipsOperationCall.image("colourspace", image, ["space": .string("rgb16")])
        case "b-w": return try VipsOperationCall.image("colourspace", image, ["space": .string("grey16")])
        default: return try VipsOperationCall.image("cast", image, ["format": .string("ushort"), "shift": .bool(true)])
        }
    }

    /// The kinds of metadata a `metadata` value keeps.
    static func keptMetadata(_ value: ParameterValue?) -> Set<MetadataKind> {
        switch value {
        case .string("keep"): return Set(MetadataKind.allCases)
        case .list(let words):
            return Set(words.compactMap { if case .string(let word) = $0 { return MetadataKind(rawValue: word) } else { return nil } })
        default: return MetadataKind.keptByDefault
        }
    }

    let format: EncodeFormat
    let options: [String: VipsArgumentValue]
    var keptMetadata: Set<MetadataKind> = MetadataKind.keptByDefault
    /// What the plan saw of this encode (its quality, for the direct path): read once, where
    /// the planner read it.
    var directForm: DirectForm?
    /// A quality to search for rather than a fixed Q (`EncodeStage+Target`).
    var target: EncodeTarget?
    /// Each output size's last answer, where the next search of this node starts.
    let answers = QualityAnswers()

    /// For `explain`: which encoder writes the file, and with what, on each path; or why only
    /// libvips' saver does.
    var planNotes: [String] {
        func number(_ name: String) -> String {
            switch options[name] {
            case .int(let value)?: return "\(value)"
            case .double(let value)?: return ParameterType.format(value)
            default: return "libvips' default"
            }
        }
        let saver = format.saver.replacingOccurrences(of: "_buffer", with: "")
        let libvips = format.name == "avif" ? "libvips' heifsave (libheif, libaom) at Q \(number(Self.qualityName)), effort \(number("effort"))"
            : "libvips' \(saver) at Q \(number(Self.qualityName))"
        if let target {
            let vips = format.name == "avif" ? "libvips' heifsave (libheif, libaom)" : "libvips' \(saver)"
            let tolerance = target.score == nil ? "" : target.tolerance == 0 ? " (the lowest quality that reaches it)"
                : " (a candidate within \(ParameterType.format(target.tolerance)) points above it kept at once)"
            let from = directForm == nil ? "libvips' image" : "the direct path's RGB pixels when its tree runs there (the tree then decodes RGB, not the file's planes), else from libvips' image"
            return ["\(format.displayName): by \(vips), the quality searched for each output: \(target.description)\(tolerance), Q \(target.minQ)…\(target.maxQ), at most \(target.encodes) encodes, each decoded and scored with SSIMULACRA2 against the pixels the encode was given, from \(from)"]
        }
        // Whether the tree runs on the direct path is the decode's to say (its own note).
        switch directForm {
        case .avifEncode(let quality, let speed)?:
            return ["AVIF: by libavif (libaom, speed \(speed), quantization matrices) at Q \(quality), one thread, when its tree runs on the direct path; else by \(libvips)"]
        case .jpegEncode(let quality)?:
            let sampling = DirectForm.jpegSubsamples(quality: quality) ? "4:2:0" : "4:4:4"
            return ["JPEG: by libjpeg at Q \(quality), \(sampling), as libvips writes it, when its tree runs on the direct path; else by \(libvips)"]
        case .webpEncode(let quality)?:
            return ["WebP: by libwebp at Q \(quality), method \(WebPCodec.defaultMethod), when its tree runs on the direct path; else by \(libvips)"]
        case .jxlEncode(let quality, let effort)?:
            return ["JPEG XL: by libvips' jxlsave (libjxl) at Q \(quality), effort \(effort), from the direct path's RGB pixels when its tree runs there (the tree then decodes RGB, not the file's planes), else from libvips' image"]
        default:
            if format.name == "jxl" {
                let q = options["distance"] == nil ? "Q \(number(Self.qualityName) == "libvips' default" ? "75" : number(Self.qualityName))" : "distance \(number("distance"))"
                return ["JPEG XL: by libvips' jxlsave (libjxl) at \(q), effort \(number("effort")), as its options ask for more than the direct path's (a quality and an effort)"]
            }
            guard ["jpeg", "webp", "avif"].contains(format.name) else {
                return ["\(format.displayName): by libvips' \(saver) (the direct path writes JPEG, WebP, AVIF and JPEG XL)"]
            }
            return ["\(format.displayName): by \(libvips), as its options ask for more than the direct path's (a quality; for AVIF an effort; the default metadata)"]
        }
    }

    func run(_ inputs: StageInputs, context: StageContext) throws -> Payload {
        if case .direct(let direct)? = StageImage(inputs.first) {
            if let target { return try encodeDirect(direct, toward: target, context: context) }
            return try encodeDirect(direct, context: context)
        }
        let pixels = try inputs.image(context)
        let image = try widenedForSixteenBitPNG(try pixels.keepingMetadata(keptMetadata))
        var options = self.options
        // libvips flattens alpha for a format without it onto its `background`, black unless
        // given: a product shot on a transparent ground came out on black. White, as a shop page
        // needs, unless the node says otherwise; the report says so once.
        if !format.keepsAlpha, image.hasAlpha, options["background"] == nil {
            options["background"] = .doubles([image.whiteValue])
            context.note("transparent pixels flattened onto white for \(format.displayName) (give the encode a \"background\" for another colour)")
        }
        for (name, value) in options where VipsOperationPolicy.fileArguments.contains(name) {
            guard case .string(let file) = value, !VipsOperationPolicy.builtins(for: name).contains(file) else { continue }
            options[name] = .string(try PresetFolder.resolve(file, in: context.baseDirectory))
        }
        // The encode computes the pixels of the whole pipeline above it: its progress is theirs.
        let (data, warnings) = try target.map { try encode(image, pixelsOf: pixels, toward: $0, options: options, context: context) }
            ?? image.encode(format, options: options, cancellation: context.cancellation, progress: context.pixelProgress)
        releaseHeapAfterLargeImage(image)
        // What the decoder worked around shows now, but belongs to the decode.
        for warning in warnings { context.warn(warning, node: image.origin?.node) }
        return .bytes(Bytes(data, origin: context.item.source,
                            image: EncodedImage(width: image.width, height: image.height, format: format.name)))
    }

    /// After the pixels of large photos, the heap holds many megabytes freed in pieces (libvips'
    /// buffers, decoder rows) that glibc keeps mapped; over a long run they add up to a higher
    /// peak (W over 250 photos: 110 MiB, 96–99 with this; after every fourth photo, 105–111).
    /// Handing them back costs page faults later, so only after a photo of 4 MP or more and only
    /// past 4 MiB free: small images, thousands a second, never pay for the check.
    private func releaseHeapAfterLargeImage(_ image: VipsImage) {
        guard let origin = image.origin, origin.storedWidth * origin.storedHeight >= 4_000_000 else { return }
        VipsRuntime.releaseFreeHeap(over: 4 << 20)
    }

    /// libvips' name for its savers' quality, and their default (jpegsave's and webpsave's).
    static let qualityName = "Q", defaultQuality = 75
}
