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

        static let bindings: [ParameterBinding<Self>] = [
            // Every known format: one this libvips cannot write is refused by `check`, which says why.
            .string("format", \.format, "Output format.", type: .choice(EncodeFormat.known.map(\.name)), .init(required: true)),
            .value("metadata", \.metadata,
                   "What the file carries besides pixels: \"strip\" keeps only the ICC colour profile (no EXIF, GPS, serial numbers, embedded preview, XMP or IPTC), \"keep\" everything, or a list of \"icc\", \"exif\", \"xmp\", \"iptc\" to keep.",
                   type: .anyOf([.choice(["strip", "keep"]), .flags(MetadataKind.allCases.map(\.rawValue))])),
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
            name: "encode", summary: "Evaluates the image and encodes it (JPEG, PNG, WebP, TIFF, GIF, HEIF, AVIF, JPEG XL). One encode repeated over formats gives each format its own options in a block named by it: \"avif\": {\"Q\": 60, \"effort\": 4}. JPEG has no transparency: an image with alpha is flattened onto \"background\", white unless given (libvips' own default is black), and the run's report notes it once. AVIF defaults to Q 51 and effort 3 (not libvips' 50 and 4): about libvips' bytes and quality in a third of its CPU, measured with SSIMULACRA2; a JPEG's AVIF goes straight from its planes to libavif on the direct path.",
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
                func int(_ name: String) -> Int? { if case .int(let value)? = values[name] { value } else { nil } }
                switch own.format {
                case "jpeg": return .jpegEncode(quality: int(qualityName) ?? defaultQuality)
                case "webp": return .webpEncode(quality: int(qualityName) ?? defaultQuality)
                case "avif": return AVIFDefaults.form(quality: int(qualityName), effort: int("effort"))
                case "jxl": return .jxlEncode(quality: int(qualityName) ?? defaultQuality, effort: int("effort") ?? jxlEffort)
                default: return nil
                }
            },
            heldBytes: { p, pixels in heldBytes(format: Parameters(p).format, pixels: pixels) },
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
            if format.name == "avif" {
                // The direct path's measured defaults on libvips' path too (`AVIFDefaults`).
                if options[qualityName] == nil { options[qualityName] = .int(AVIFDefaults.quality) }
                if options["effort"] == nil { options["effort"] = .int(AVIFDefaults.effort) }
            }
            if format.name == "jxl", options["effort"] == nil { options["effort"] = .int(jxlEffort) }
            return EncodeStage(format: format, options: options, keptMetadata: keptMetadata(own.metadata), directForm: spec.directForm?(p))
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

    /// The saver options a copy writing `format` gets: the node's own, with the block of
    /// options for that format alone (`"avif": {"Q": 52}`) over them; other formats' blocks are
    /// for the copies that write those.
    static func saverValues(_ p: ParameterValues, format: String?) -> [String: ParameterValue] {
        let own = Set(Parameters.bindings.map(\.spec.name)), blocks = Set(EncodeFormat.known.map(\.name))
        var values: [String: ParameterValue] = [:]
        for name in p.names where !own.contains(name) && !blocks.contains(name) { values[name] = p[name] }
        if let format, let block = p[format] {
            for (name, value) in block.pairs { values[name] = value }
        }
        return values
    }

    /// One parameter per format, named by it, holding options for that format alone: one
    /// `encode` repeated over formats (`"foreach": {"fmt": ["avif", "webp", "jpeg"]}`) gives each
    /// its own quality and effort.
    private static func formatBlocks(of formats: [EncodeFormat]) -> [ParameterSpec] {
        formats.map { format in
            let fields = format.options.filter { $0.name != "strip" }.compactMap { argument -> OptionField? in
                guard let parameter = VipsOperationOps.parameter(for: argument, as: fileType(argument.name)) else { return nil }
                return OptionField(parameter.name, parameter.type, aliases: parameter.name == qualityName ? ["quality"] : parameter.aliases)
            }
            let example = format.name == "avif" || format.name == "jxl" || format.name == "webp" ? "{\"Q\": 60, \"effort\": 4}" : "{\"Q\": 82}"
            return ParameterSpec(format.name, .options(fields), default: nil, passesDefault: false,
                                 "Options for the copies that write \(format.displayName) alone, e.g. \"\(format.name)\": \(example); over the same options given to the node.")
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

    /// The union of the savers' options: one parameter per name, with a type wide enough for
    /// every saver that has it (`check` then holds the value to the chosen saver's own type).
    private static func saverOptions(of formats: [EncodeFormat]) -> [ParameterSpec] {
        var byName: [String: [ParameterSpec]] = [:]
        var order: [String] = []
        for format in formats {
            for argument in format.options {
                guard let parameter = VipsOperationOps.parameter(for: argument, as: fileType(argument.name)) else { continue }
                if byName[parameter.name] == nil { order.append(parameter.name) }
                byName[parameter.name, default: []].append(parameter)
            }
        }
        return order.compactMap { name in
            guard let variants = byName[name], let first = variants.first else { return nil }
            let having = formats.filter { f in f.options.contains { $0.name == name } }.map(\.name)
            let sameDefault = variants.allSatisfy { $0.defaultValue == first.defaultValue }
            return ParameterSpec(name, widest(variants.map(\.type)), default: sameDefault ? first.defaultValue : nil,
                                 passesDefault: false, aliases: name == "Q" ? ["quality"] + first.aliases : first.aliases,
                                 deprecated: variants.allSatisfy(\.isDeprecated),
                                 givenNotice: name == "strip" ? Self.stripNotice : nil,
                                 summary(of: variants, formats: having))
        }
    }

    /// One saver's words for an option, with the formats that have it; each saver's own words
    /// where they differ (PNG's `effort` is quantisation effort, 0…10, WebP's 0…6).
    private static func summary(of variants: [ParameterSpec], formats: [String]) -> String {
        func plain(_ text: String) -> String { String(text.dropLast(text.hasSuffix(".") ? 1 : 0)) }
        var wordings: [(text: String, formats: [String])] = []
        for (variant, format) in zip(variants, formats) {
            let text = plain(variant.summary) + (variant.type.bounds.map { ", \(ParameterType.format($0.lowerBound))…\(ParameterType.format($0.upperBound))" } ?? "")
            if let index = wordings.firstIndex(where: { $0.text == text }) {
                wordings[index].formats.append(format)
            } else {
                wordings.append((text, [format]))
            }
        }
        guard wordings.count > 1 else { return "\(plain(variants[0].summary)) (\(formats.joined(separator: ", ")))." }
        return wordings.map { "\($0.formats.joined(separator: ", ")): \($0.text)" }.joined(separator: "; ") + "."
    }


    /// What validation says of libvips' `strip`, which `metadata` overrules.
    static let stripNotice = "\"strip\" is libvips' own and would drop the ICC colour profile too; \"metadata\" decides what the file keeps (its default, \"strip\", keeps only the ICC profile), so \"strip\" is ignored — to drop the profile as well, give \"metadata\": []"

    /// The saver options that name files (the ICC profile to embed) read only inside the preset's folder.
    private static func fileType(_ name: String) -> ParameterType? {
        VipsOperationPolicy.fileArguments.contains(name) ? .presetFile(builtins: VipsOperationPolicy.builtins(for: name)) : nil
    }

    /// One type that accepts what each of `types` accepts.
    private static func widest(_ types: [ParameterType]) -> ParameterType {
        var unique: [ParameterType] = []
        for type in types where !unique.contains(type) { unique.append(type) }
        guard unique.count > 1 else { return unique.first ?? .string }
        let ints = unique.compactMap { if case .int(let r) = $0 { return r } else { return nil } }
        if ints.count == unique.count, let low = ints.map(\.lowerBound).min(), let high = ints.map(\.upperBound).max() {
            return .int(low...high)
        }
        let doubles = unique.compactMap { if case .double(let r) = $0 { return r } else { return nil } }
        if doubles.count == unique.count, let low = doubles.map(\.lowerBound).min(), let high = doubles.map(\.upperBound).max() {
            return .double(low...high)
        }
        let words = unique.compactMap { if case .choice(let w) = $0 { return w } else { return nil } }
        if words.count == unique.count {
            var all: [String] = []
            for word in words.joined() where !all.contains(word) { all.append(word) }
            return .choice(all)
        }
        return .anyOf(unique)
    }

    /// Holds every option to the chosen format's saver, and the format to what this libvips can write.
    private static func check(_ values: ParameterValues) -> String? {
        guard let name = Parameters(values).format, let format = EncodeFormat.named(name) else { return nil }
        if let reason = format.unavailableReason() { return reason }
        let options = format.options
        let own = Set(Parameters.bindings.map(\.spec.name)), blocks = Set(EncodeFormat.known.map(\.name))
        for given in values.names where !own.contains(given) && !blocks.contains(given) {
            guard let argument = options.first(where: { $0.name == given }),
                  let parameter = VipsOperationOps.parameter(for: argument, as: fileType(given)) else {
                // The formats a page is made of first: the likeliest siblings in a repeated encode.
                let order = ["avif", "webp", "jxl", "jpeg", "png", "heif", "gif", "tiff"]
                let others = EncodeFormat.loaded.filter { $0.name != name && $0.options.contains { $0.name == given } }
                    .map(\.name).sorted { (order.firstIndex(of: $0) ?? 99) < (order.firstIndex(of: $1) ?? 99) }
                let block = others.first.map { "; to give it to the formats that have it (\(others.joined(separator: ", "))), write it in each one's block, e.g. \"\($0)\": {\"\(given)\": …}" } ?? ""
                return "\"\(given)\" is not an option of \(name) (\(format.saver)); its options: "
                    + options.map { "\"\($0.name)\"" }.joined(separator: ", ") + block
            }
            if let value = values[given], !parameter.type.accepts(value) {
                return "\"\(given)\" for \(name) must be \(parameter.type.summary), not \(value)"
            }
        }
        return nil
    }

    let format: EncodeFormat
    let options: [String: VipsArgumentValue]
    var keptMetadata: Set<MetadataKind> = MetadataKind.keptByDefault
    /// What the plan saw of this encode (its quality, for the direct path): read once, where
    /// the planner read it.
    var directForm: DirectForm?

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
            return try encodeDirect(direct, context: context)
        }
        let image = try widenedForSixteenBitPNG(try inputs.image(context).keepingMetadata(keptMetadata))
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
        let (data, warnings) = try image.encode(format, options: options, cancellation: context.cancellation,
                                                progress: context.pixelProgress)
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

    /// JPEG XL's effort when none is given: libjxl's 5 against libvips' 7 is 0.52× the CPU at
    /// 0.98× the bytes and 0.26 SSIMULACRA2 points less (`bench/jxl-settings.py`, 8 photos at
    /// 960 px, at libvips' Q 75).
    static let jxlEffort = 5

    /// libvips' name for its savers' quality, and their default (jpegsave's and webpsave's).
    static let qualityName = "Q", defaultQuality = 75

    /// JPEG XL from the direct path's pixels: only libvips' saver writes it, so they become a
    /// libvips image in memory (RGB: a tree with a JPEG XL decodes RGB, not planes).
    private func encodeJXL(_ direct: DirectImage, quality: Int, effort: Int, context: StageContext) throws -> Payload {
        guard case .interleaved(let pixels) = direct.pixels,
              let image = VipsImage.copying(pixels.pixels, width: pixels.width, height: pixels.height, bands: pixels.bands, icc: direct.profile) else {
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
    private func encodeDirect(_ direct: DirectImage, context: StageContext) throws -> Payload {
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
