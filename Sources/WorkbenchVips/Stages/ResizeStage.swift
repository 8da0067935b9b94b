import WorkbenchCore
import WorkbenchDirect

/// `resize` and `thumbnail`: scale by a factor, or fit a width and/or height (contain, cover or
/// fill), never enlarging unless asked. libvips' `thumbnail_image` and `resize` do the work.
struct ResizeStage: Stage {
    enum Fit: String, CaseIterable, Sendable {
        /// Inside the box, keeping the aspect ratio.
        case contain
        /// Covering the box, keeping the aspect ratio, then cropped to it.
        case cover
        /// Exactly the box, stretched.
        case fill
    }

    /// Of fit "cover": what the crop keeps (libvips' `interesting`).
    enum Crop: String, CaseIterable, Sendable {
        case centre, attention, entropy
    }

    /// The op's parameters, each declared once and bound to its field.
    struct Parameters: OpParameters {
        var width: Int?
        var height: Int?
        var fit = Fit.contain
        var crop = Crop.centre
        var upscale = false
        var scale: Double?
        var fastShrink = false

        static let bindings: [ParameterBinding<Self>] = [
            .int("width", \.width, 1...unbounded, "Target width in pixels."),
            .int("height", \.height, 1...unbounded, "Target height in pixels."),
            .choice("fit", \.fit, "\"contain\" fits inside width × height, \"cover\" fills it and crops, \"fill\" stretches to it."),
            .choice("crop", \.crop, "With fit \"cover\": what to keep; \"attention\" and \"entropy\" find the interesting part (smart crop)."),
            .bool("upscale", \.upscale, "Enlarge images smaller than the target."),
            .double("scale", \.scale, 0.0001...100, "Scale factor for both axes, instead of width and height."),
            .bool("fastShrink", \.fastShrink,
                  "Decode JPEGs at the smallest DCT scale that covers the target, not libvips' twice the target (faster: about 0.6× the CPU on large photos; about 0.5 dB PSNR less)."),
        ]

        /// Only a box fitted inside, never enlarged: one such result is the image a smaller box
        /// would start from, less what it already shrank; and what the direct path resizes.
        var fitBox: FitBox? {
            guard scale == nil, fit == .contain, !upscale, width != nil || height != nil else { return nil }
            return FitBox(width: width, height: height, headroom: fastShrink ? 1 : 2)
        }

        /// What is wrong with this combination, or nil.
        var problem: String? {
            let sized = width != nil || height != nil
            if scale != nil { return sized ? "give \"scale\" or \"width\"/\"height\", not both" : nil }
            if !sized { return "give \"width\", \"height\" or both (or \"scale\")" }
            if fit != .contain && (width == nil || height == nil) { return "fit \"\(fit.rawValue)\" needs both \"width\" and \"height\"" }
            return nil
        }
    }

    /// libvips' convention for "no limit" on one axis (pyvips passes the same value).
    static let unbounded = 10_000_000

    static func spec(name: String) -> OpSpec {
        OpSpec(
            name: name, summary: name == "thumbnail" ? "Fits the image to a width and/or height, or scales it by a factor."
                : "Another name for thumbnail, with the same parameters: fits the image to a width and/or height, or scales it.",
            input: .image, output: .image, defaultQueue: "cpu", execution: .cpu,
            parameters: Parameters.specs,
            readsSequentially: true,
            fitBox: { Parameters($0).fitBox },
            directForm: { Parameters($0).fitBox.map { .fit($0) } },
            resizeRequest: { values in
                let p = Parameters(values)
                return ResizeRequest(width: p.width, height: p.height, scale: p.scale, framed: p.fit != .contain, upscale: p.upscale)
            },
            check: { Parameters($0).problem })
    }

    static let definitions = ["resize", "thumbnail"].map { name in
        OpDefinition(spec(name: name)) { values, facts in
            ResizeStage(Parameters(values), outputIsReadOnce: facts.outputIsReadOnce, keepsResult: facts.keepsResult, madeFromLarger: facts.madeFromLarger)
        }
    }

    /// A fused result read more than once is kept in memory up to this size; larger ones are not fused.
    static let memoryLimit = 25_000_000

    let parameters: Parameters
    /// One consumer reads the result once, top to bottom (see `NodeFacts`).
    let outputIsReadOnce: Bool
    /// Several nodes read the result: compute it once and keep it, if it is small enough.
    var keepsResult = false
    /// The planner has this resize made from a larger one's result (`GraphPlanner`): its size
    /// is worked out from the full image's, so that rounding twice changes no dimension.
    var madeFromLarger = false

    init(_ parameters: Parameters, outputIsReadOnce: Bool, keepsResult: Bool = false, madeFromLarger: Bool = false) {
        (self.parameters, self.outputIsReadOnce, self.keepsResult, self.madeFromLarger) = (parameters, outputIsReadOnce, keepsResult, madeFromLarger)
    }

    func run(_ inputs: StageInputs, context: StageContext) throws -> Payload {
        let source: DirectSource
        switch StageImage(inputs.first) {
        case .directSource(let file)?: source = file
        case .direct(let image)?: return .image(try reduced(image, context: context))
        default: return try run(inputs.first, image: try inputs.image(context), context: context)
        }
        // The decode chose the direct path for this chain; a file it cannot finish goes to libvips
        // as if the decode had never chosen it.
        do {
            // A turned photo is sized in its stored orientation and turned last; libvips' own
            // thumbnail, which takes such files, keeps its twice-the-target headroom.
            let orientation = source.header.orientation
            let turned = orientation >= 5
            let thumbnail = Thumbnail(width: turned ? parameters.height : parameters.width, height: turned ? parameters.width : parameters.height,
                                      fast: parameters.fastShrink && orientation == 1)
            let pixels: DirectImage.Pixels, shrink: Int, loaded: (Int, Int), size: (Int, Int)
            // Planes only when there is a reduce: a photo kept at its size is decoded, turned
            // and encoded exactly as libvips would (the same bytes).
            let planar = source.keepsPlanes && thumbnail.reduces(source.header)
            if planar {
                let made = try thumbnail.makePlanes(from: source.bytes.data, header: source.header)
                (shrink, loaded, size) = (made.shrink, made.loaded, (made.image.width, made.image.height))
                pixels = .planes(made.image.upright(from: orientation))
            } else {
                var made = try thumbnail.make(from: source.bytes.data, header: source.header)
                (shrink, loaded, size) = (made.shrink, made.loaded, (made.image.width, made.image.height))
                // Colours converted after the resize, as libvips' thumbnail converts them.
                source.transform?.apply(to: &made.image)
                pixels = .interleaved(made.image.upright(from: orientation))
            }
            let (width, height) = (source.header.width, source.header.height)
            let image = DirectImage(pixels, node: source.node, fullWidth: turned ? height : width, fullHeight: turned ? width : height,
                                    profile: source.profile)
            // Sizes as stored, then the upright result's.
            let reduced = size == loaded ? "nothing to reduce" : "Lanczos-3 to \(image.width)×\(image.height)"
            let planes = planar ? " in YCbCr planes" : ""
            let turn = orientation == 1 ? "" : ", turned upright (EXIF orientation \(orientation))"
            let colour = source.transform == nil ? "" : ", converted to sRGB through its ICC profile"
            context.recordDecode("direct path: libjpeg at 1/\(shrink) (\(loaded.0)×\(loaded.1)), \(reduced)\(planes)\(turn)\(colour)")
            return .image(image)
        } catch {
            context.logger.debug("\(context.item.name): direct path declined (\(error)); libvips decodes it")
        }
        let decoded = try source.decodedByLibvips()
        return try run(.image(decoded), image: try decoded.image.shallow(context), context: context)
    }

    /// A larger fit's pixels on the direct path (the planner's cascade, or a fit written after
    /// another), made smaller: sized from the whole file when cascaded, as libvips' thumbnail
    /// of the file would be, else from these pixels.
    private func reduced(_ image: DirectImage, context: StageContext) throws -> DirectImage {
        guard parameters.fitBox != nil else {
            // The planner gives the direct path's pixels only to fits.
            throw WorkbenchError.unexpectedInput(node: context.nodeID, expected: "an image libvips made (the direct path only fits)")
        }
        let from = madeFromLarger ? (image.fullWidth, image.fullHeight) : (image.width, image.height)
        guard let size = fittedSize(of: from), size.width < image.width || size.height < image.height else { return image }
        let planes = if case .planes = image.pixels { " in YCbCr planes" } else { "" }
        context.logger.debug("\(context.item.name): direct path: Lanczos-3 from \(image.width)×\(image.height) to \(size.width)×\(size.height)\(planes)")
        return image.reduced(width: min(size.width, image.width), height: min(size.height, image.height))
    }

    /// The libvips path, for `image` (what `input` carries).
    private func run(_ input: Payload?, image: VipsImage, context: StageContext) throws -> Payload {
        if let scale = parameters.scale {
            return .image(try VipsOperationCall.image("resize", image, ["scale": .double(scale)]))
        }
        var arguments: [String: VipsArgumentValue] = [
            "width": .int(parameters.width ?? Self.unbounded),
            "height": .int(parameters.height ?? Self.unbounded),
            "size": .string(parameters.fit == .fill ? "force" : parameters.upscale ? "both" : "down"),
        ]
        if parameters.fit == .cover { arguments["crop"] = .string(parameters.crop.rawValue) }
        if madeFromLarger, let size = sizeFromFullImage(image) {
            arguments = ["width": .int(size.width), "height": .int(size.height), "size": .string("force")]
        }
        // Fused with the decode by the run plan: decode and shrink in one step from the bytes
        // instead. That streams, so a result read more than once is kept in memory (if it is small).
        let fusedSource: DecodedSource?
        if case .shrinkable(let shrinkable)? = StageImage(input) { fusedSource = shrinkable.source } else { fusedSource = nil }
        if let source = fusedSource, outputIsReadOnce || expectedPixels(of: image) <= Self.memoryLimit,
           let fused = try VipsDecoding.thumbnail(source, arguments, box: (parameters.width ?? Self.unbounded, parameters.height ?? Self.unbounded),
                                                  headroom: parameters.fit == .fill ? nil : parameters.fastShrink ? 1 : 2,
                                                  cancellation: context.cancellation, warned: { context.warn($0, node: source.node) }) {
            let shrink = (fused.origin?.jpegShrink ?? 1) > 1
                ? " (JPEG at 1/\(fused.origin?.jpegShrink ?? 1)\(fused.origin?.reducedByOurPasses == true ? ", reduced by our passes" : ""))"
                : fused.origin?.reducedPremultiplied == true ? " (PNG decoded with libdeflate, reduced premultiplied on the direct path)"
                : fused.origin?.decodedByPNGDecoder == true ? " (PNG decoded with libdeflate)"
                : fused.origin?.pngDeclined.map { " (PNG decoded by libpng: our decoder declines \($0))" } ?? ""
            context.recordDecode("decode: loading with shrink-on-load for \(image.width)×\(image.height) → fit \(parameters.width.map(String.init) ?? "∞")×\(parameters.height.map(String.init) ?? "∞")\(shrink)")
            return .image(outputIsReadOnce ? fused : try kept(fused, context))
        }
        if fusedSource != nil {
            context.recordDecode("decode: loading the whole image (\(image.width)×\(image.height)): shrink-on-load does not apply")
        }
        // The decode left the memory check to this step, which decodes the whole image after all.
        if let source = fusedSource { try VipsDecoding.checkMemory(source) }
        // A smart crop measures the image as the operation is built.
        let resized = try VipsOperationCall.image("thumbnail_image", image, arguments, cancellation: context.cancellation)
        // Several readers would each compute the lazy pipeline again: compute it once, if it fits.
        return .image(keepsResult && resized.width * resized.height <= Self.memoryLimit ? try kept(resized, context) : resized)
    }

    /// `image`'s pixels computed now and kept in memory, still knowing where they came from.
    private func kept(_ image: VipsImage, _ context: StageContext) throws -> VipsImage {
        let (kept, warnings) = try image.inMemory(cancellation: context.cancellation)
        // Read now, the pixels tell of damage the decoder worked around: the decode's.
        for warning in warnings { context.warn(warning, node: image.origin?.node) }
        return kept.relabelled(origin: image.origin, depth: 0)
    }

    /// The size a thumbnail of the full image would have (libvips rounds once, from the full
    /// size), for a resize made from a larger one's result; nil when that result is the full
    /// image itself (nothing was shrunk) or its origin is unknown.
    private func sizeFromFullImage(_ image: VipsImage) -> (width: Int, height: Int)? {
        guard let origin = image.origin, parameters.fit == .contain, parameters.scale == nil, !parameters.upscale else { return nil }
        let turned = origin.orientation >= 5
        let full = turned ? (origin.storedHeight, origin.storedWidth) : (origin.storedWidth, origin.storedHeight)
        guard (image.width, image.height) != full else { return nil }
        return fittedSize(of: full)
    }

    /// The size libvips' thumbnail gives an image of size `full` in this fit's box (one
    /// rounding, from that size); nil when it would not shrink it.
    private func fittedSize(of full: (Int, Int)) -> (width: Int, height: Int)? {
        let shrink = max(parameters.width.map { Double(full.0) / Double($0) } ?? 0, parameters.height.map { Double(full.1) / Double($0) } ?? 0)
        guard shrink > 1 else { return nil }
        return (max(1, Int((Double(full.0) / shrink).rounded())), max(1, Int((Double(full.1) / shrink).rounded())))
    }

    /// The size of the result for an image of `full` (upright) pixels, as the libvips path
    /// makes it; for `explain`.
    func resultSize(ofFull full: (Int, Int)) -> (width: Int, height: Int) {
        if let scale = parameters.scale {
            return (max(1, Int((Double(full.0) * scale).rounded())), max(1, Int((Double(full.1) * scale).rounded())))
        }
        switch parameters.fit {
        case .fill: return (parameters.width ?? full.0, parameters.height ?? full.1)
        case .cover:
            let scale = max(Double(parameters.width ?? full.0) / Double(full.0), Double(parameters.height ?? full.1) / Double(full.1))
            guard scale < 1 || parameters.upscale else {
                return (min(full.0, parameters.width ?? full.0), min(full.1, parameters.height ?? full.1))
            }
            return (parameters.width ?? full.0, parameters.height ?? full.1)
        case .contain:
            if parameters.upscale {
                let scale = min(Double(parameters.width ?? Self.unbounded) / Double(full.0), Double(parameters.height ?? Self.unbounded) / Double(full.1))
                return (max(1, Int((Double(full.0) * scale).rounded())), max(1, Int((Double(full.1) * scale).rounded())))
            }
            return fittedSize(of: full) ?? (full.0, full.1)
        }
    }

    /// At most how many pixels the result has.
    private func expectedPixels(of image: VipsImage) -> Int {
        let w = Double(parameters.width ?? Self.unbounded), h = Double(parameters.height ?? Self.unbounded)
        let scale = parameters.fit == .fill ? 1 : min(w / Double(image.width), h / Double(image.height))
        let factor = parameters.upscale || parameters.fit == .fill ? scale : min(scale, 1)
        if parameters.fit == .fill { return Int(min(w * h, 1e15)) }
        return Int(Double(image.width) * factor * Double(image.height) * factor)
    }
}
