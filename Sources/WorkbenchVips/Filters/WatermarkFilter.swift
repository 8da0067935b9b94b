import WorkbenchCore

/// The parameter names this file's ops declare and read, each once (`ParameterName`).
enum WatermarkParameter: String, ParameterName {
    case gravity, left, margin, mode, opacity, overlay, scale, size, top
}

/// `watermark` (and its other name `composite`): lays another node's image over this one.
enum WatermarkFilter {
    static func definition(_ name: String) -> OpDefinition {
        FilterStage.define(name, name == "watermark" ? "Lays another node's image (e.g. a logo) over this one, at a corner or anywhere."
                           : "Another name for watermark, with the same parameters: lays another node's image over this one.", [
            ParameterSpec(WatermarkParameter.overlay, .reference(.image), required: true, "The image to lay on top, e.g. \"@logo\"."),
            ParameterSpec(WatermarkParameter.gravity, .choice(FilterStage.gravities), default: .string("south-east"), "Where it goes."),
            ParameterSpec(WatermarkParameter.margin, .int(0...100_000), default: .int(10), pixels: true, "Pixels from the edges it is placed against."),
            ParameterSpec(WatermarkParameter.left, .int(-100_000...100_000), pixels: true, "Exact position instead of gravity (with \"top\")."),
            ParameterSpec(WatermarkParameter.top, .int(-100_000...100_000), pixels: true, "Exact position instead of gravity (with \"left\")."),
            ParameterSpec(WatermarkParameter.opacity, .double(0...1), default: .double(1), "0 invisible, 1 as opaque as the overlay is."),
            ParameterSpec(WatermarkParameter.size, .double(0.001...1),
                          "The overlay's width as a fraction of the image's (0.2: a fifth), whatever size the image is; it keeps its shape."),
            // A length in pixels to the preview: the live page multiplies it by the copy's scale,
            // so a logo of fixed pixels is as large on a preview as on the file.
            ParameterSpec(WatermarkParameter.scale, .double(0.001...1000), default: .double(1), pixels: true, recipeOmitsDefault: true, unusedWith: "size", factor: true,
                          "Resizes the overlay by this factor (unused with \"size\")."),
            ParameterSpec(WatermarkParameter.mode, .choice(["over", "multiply", "screen", "overlay", "darken", "lighten", "soft-light", "hard-light", "difference"]),
                          default: .string("over"), "How the colours blend (libvips' blend modes)."),
        ], check: { p in
            (p.int(WatermarkParameter.left) == nil) != (p.int(WatermarkParameter.top) == nil) ? "give both \"left\" and \"top\", or neither" : nil
        }) { p in
            let opacity = p.number(WatermarkParameter.opacity), size = p.double(WatermarkParameter.size), scale = p.double(WatermarkParameter.scale) ?? 1
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
                var position = FilterStage.position(p.word(WatermarkParameter.gravity), outer: (image.width, image.height),
                                               inner: (overlay.width, overlay.height), margin: p.integer(WatermarkParameter.margin))
                if let left = p.int(WatermarkParameter.left), let top = p.int(WatermarkParameter.top) { position = (left, top) }
                let blended = try FilterStage.vips("composite2", image, ["overlay": .image(overlay), "mode": .string(p.word(WatermarkParameter.mode)),
                                                                    "x": .int(position.x), "y": .int(position.y)])
                // composite2 always adds alpha; an opaque image stays opaque (and keeps its band count).
                guard !image.hasAlpha else { return blended }
                return try FilterStage.vips("extract_band", blended, ["band": .int(0), "n": .int(blended.bands - 1)])
            }
        }
    }

    static let all = [definition("watermark"), definition("composite")]
}
