import WorkbenchCore
import WorkbenchDirect

/// `resize` and `thumbnail`: scale by a factor, or fit a width and/or height (contain, cover or
/// fill), never enlarging unless asked. Four ways, each in a file of its own: a JPEG on the
/// direct path (`+Direct`: decoded at a DCT scale and reduced by our resampler), the direct
/// path's pixels made smaller (`+Direct`), a decode left to this resize (`+Fused`: decoded and
/// shrunk in one step from the bytes), and an image libvips decoded (`+Libvips`:
/// `thumbnail_image` or `resize`). The sizes are worked out in `+Sizes`, what `--verbose` and
/// the report say of the decode in `DecodeNote`.
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

    /// Of a node written with `foreach`: what becomes of a copy that comes out the same as a
    /// smaller copy (Eleventy's rule: widths wider than the photo are not made).
    enum Repeats: String, CaseIterable, Sendable {
        case omit, make
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
        var repeats = Repeats.omit

        static let bindings: [ParameterBinding<Self>] = [
            .int("width", \.width, 1...unbounded, "Target width in pixels."),
            .int("height", \.height, 1...unbounded, "Target height in pixels."),
            .choice("fit", \.fit, "\"contain\" fits inside width × height, \"cover\" fills it and crops, \"fill\" stretches to it."),
            .choice("crop", \.crop, "With fit \"cover\": what to keep; \"attention\" and \"entropy\" find the interesting part (smart crop)."),
            .bool("upscale", \.upscale, "Enlarge images smaller than the target."),
            .double("scale", \.scale, 0.0001...100, "Scale factor for both axes, instead of width and height."),
            .bool("fastShrink", \.fastShrink,
                  "Decode JPEGs at the smallest DCT scale that covers the target, not libvips' twice the target (faster: about 0.6× the CPU on large photos; about 0.5 dB PSNR less)."),
            .choice("repeats", \.repeats,
                    "With \"foreach\" sizes: \"omit\" leaves out a copy that comes out the same as a smaller copy (an image that fits both boxes), so it is neither encoded nor written; \"make\" makes every copy."),
        ]

        /// Only a box fitted inside, never enlarged: one such result is the image a smaller box
        /// would start from, less what it already shrank; and what the direct path resizes.
        var fitBox: FitBox? {
            guard scale == nil, fit == .contain, !upscale, width != nil || height != nil else { return nil }
            return FitBox(width: width, height: height, headroom: fastShrink ? 1 : 2, makesRepeats: repeats == .make)
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

    /// libvips' convention for "no limit" on one axis.
    static let unbounded = ThumbnailRequest.unbounded

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
        switch StageImage(inputs.first) {
        case .directSource(let file)?:
            if let made = directThumbnail(file, context: context) { return .image(made) }
            // A file the direct path cannot finish goes to libvips as if the decode had never chosen it.
            let decoded = try file.decodedByLibvips()
            return try libvips(.image(decoded), image: try decoded.image.shallow(context), context: context)
        case .direct(let image)?:
            return .image(try reduced(image, context: context))
        default:
            return try libvips(inputs.first, image: try inputs.image(context), context: context)
        }
    }
}
