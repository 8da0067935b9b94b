import WorkbenchCore

/// `watermark` (and its other name `composite`): lays another node's image over this one.
enum WatermarkFilter {
    struct Parameters: OpParameters {
        /// libvips' blend modes.
        enum Mode: String, CaseIterable, Sendable {
            case over, multiply, screen, overlay, darken, lighten
            case softLight = "soft-light", hardLight = "hard-light"
            case difference
        }

        var overlay: ParameterValue?
        var gravity = FilterStage.Gravity.southEast
        var margin = 10
        var left: Int?, top: Int?
        var opacity = 1.0
        var size: Double?
        var scale = 1.0
        var mode = Mode.over

        static let bindings: [ParameterBinding<Self>] = [
            .value("overlay", \.overlay, "The image to lay on top, e.g. \"@logo\".", type: .reference(.image), .init(required: true)),
            .choice("gravity", \.gravity, "Where it goes."),
            .int("margin", \.margin, 0...100_000, "Pixels from the edges it is placed against.", .init(pixels: true)),
            .int("left", \.left, -100_000...100_000, "Exact position instead of gravity (with \"top\").", .init(pixels: true)),
            .int("top", \.top, -100_000...100_000, "Exact position instead of gravity (with \"left\").", .init(pixels: true)),
            .double("opacity", \.opacity, 0...1, "0 invisible, 1 as opaque as the overlay is."),
            .double("size", \.size, 0.001...1,
                    "The overlay's width as a fraction of the image's (0.2: a fifth), whatever size the image is; it keeps its shape."),
            // A length in pixels to the preview: the live page multiplies it by the copy's scale,
            // so a logo of fixed pixels is as large on a preview as on the file.
            .double("scale", \.scale, 0.001...1000, "Resizes the overlay by this factor (unused with \"size\").",
                    .init(recipeOmitsDefault: true, pixels: true, unusedWith: "size", factor: true)),
            .choice("mode", \.mode, "How the colours blend (libvips' blend modes)."),
        ]
    }

    static func definition(_ name: String) -> OpDefinition {
        FilterStage.define(name, name == "watermark" ? "Lays another node's image (e.g. a logo) over this one, at a corner or anywhere."
                           : "Another name for watermark, with the same parameters: lays another node's image over this one.", Parameters.self, check: { p in
            (p.left == nil) != (p.top == nil) ? "give both \"left\" and \"top\", or neither" : nil
        }) { p in
            let (opacity, size, scale) = (p.opacity, p.size, p.scale)
            return { image, inputs, context in
                guard var overlay = try StageImage(inputs.reference("overlay"))?.libvipsImage(context) else {
                    throw WorkbenchError.unexpectedInput(node: context.nodeID, expected: "an image for \"overlay\"")
                }
                // One band that says nothing of itself is a mask (what `vips.text` makes): white
                // where it is set, clear elsewhere, so text needs no box behind it.
                if overlay.interpretationName == "multiband", overlay.bands == 1 {
                    let white = try FilterStage.vips("linear", overlay, ["a": .doubles([0]), "b": .doubles([255]), "uchar": .bool(true)])
                    overlay = try FilterStage.vips("copy", try white.joined(with: overlay), ["interpretation": .string("b-w")])
                }
                // Other images that do not say what their bands are (libvips' generators make
                // such images) are taken as grey or sRGB by their band count, so they can be blended.
                if overlay.interpretationName == "multiband" {
                    overlay = try FilterStage.vips("copy", overlay, ["interpretation": .string(overlay.bands < 3 ? "b-w" : "srgb")])
                }
                // Relative to the image (the same fraction at every output width), or by a factor.
                let width = size.map { max(1, ($0 * Double(image.width)).rounded()) } ?? Double(overlay.width) * scale
                if abs(width - Double(overlay.width)) >= 0.5 {
                    overlay = try FilterStage.vips("resize", overlay, ["scale": .double(width / Double(overlay.width))])
                }
                // The overlay gets an alpha band if it has none, scaled by the opacity.
                if !overlay.hasAlpha { overlay = try FilterStage.vips("bandjoin_const", overlay, ["c": .doubles([255])]) }
                if opacity < 1 {
                    let format = overlay.format
                    overlay = try FilterStage.vips("linear", overlay, ["a": .doubles(FilterStage.perBand(overlay, 1, alpha: opacity)), "b": .doubles([0])])
                    overlay = try FilterStage.vips("cast", overlay, ["format": .enumeration(Int(format.rawValue))])
                }
                var position = FilterStage.position(p.gravity, outer: (image.width, image.height),
                                                    inner: (overlay.width, overlay.height), margin: p.margin)
                if let left = p.left, let top = p.top { position = (left, top) }
                let blended = try FilterStage.vips("composite2", image, ["overlay": .image(overlay), "mode": .string(p.mode.rawValue),
                                                                    "x": .int(position.x), "y": .int(position.y)])
                // composite2 always adds alpha; an opaque image stays opaque (and keeps its band count).
                guard !image.hasAlpha else { return blended }
                return try FilterStage.vips("extract_band", blended, ["band": .int(0), "n": .int(blended.bands - 1)])
            }
        }
    }

    static let all = [definition("watermark"), definition("composite")]
}
