import WorkbenchCore

/// `crop`, `rotate` and `flip`.
enum GeometryFilters {
    struct Crop: OpParameters {
        var width = 1, height = 1
        var left: Int?, top: Int?
        var gravity = FilterStage.Gravity.centre
        var smart: String?

        static let bindings: [ParameterBinding<Self>] = [
            .int("width", \.width, 1...10_000_000, "Width of the box in pixels (at most the image's).", .init(required: true, pixels: true)),
            .int("height", \.height, 1...10_000_000, "Height of the box in pixels (at most the image's).", .init(required: true, pixels: true)),
            .int("left", \.left, 0...10_000_000, "Left edge of the box; with \"top\", instead of \"gravity\".", .init(pixels: true)),
            .int("top", \.top, 0...10_000_000, "Top edge of the box; with \"left\", instead of \"gravity\".", .init(pixels: true)),
            .choice("gravity", \.gravity, "Where the box sits when no position is given."),
            .string("smart", \.smart, "Find the box by content instead: \"attention\" (skin, saturation, edges) or \"entropy\" (detail).",
                    type: .choice(["attention", "entropy"])),
        ]
    }

    static let crop = FilterStage.define("crop", "Cuts out a width × height box: at a position, by gravity, or where the interest is (smart crop).",
                                         Crop.self, check: { p in
        (p.left == nil) != (p.top == nil) ? "give both \"left\" and \"top\", or neither" : nil
    }) { p in
        { image, _, context in
            let w = min(p.width, image.width), h = min(p.height, image.height)
            if let interest = p.smart {
                return try FilterStage.vips("smartcrop", image, ["width": .int(w), "height": .int(h), "interesting": .string(interest)],
                                       cancellation: context.cancellation)
            }
            var origin = FilterStage.position(p.gravity, outer: (image.width, image.height), inner: (w, h))
            if let left = p.left, let top = p.top {
                guard left + w <= image.width && top + h <= image.height else {
                    throw VipsError.operationFailed(operation: "crop", message: "the box \(w)×\(h) at \(left),\(top) does not fit the \(image.width)×\(image.height) image")
                }
                origin = (left, top)
            }
            return try FilterStage.vips("extract_area", image, ["left": .int(origin.x), "top": .int(origin.y), "width": .int(w), "height": .int(h)])
        }
    }

    struct Rotate: OpParameters {
        var angle = 0.0
        var auto = false
        var background = [0.0]

        static let bindings: [ParameterBinding<Self>] = [
            .double("angle", \.angle, -360...360, "Degrees clockwise; multiples of 90 are exact."),
            .bool("auto", \.auto, "First turn upright by the EXIF orientation (decode does this by default)."),
            .numbers("background", \.background, "Colour of the corners a free angle uncovers.", type: .colour),
        ]
    }

    static let rotate = FilterStage.define("rotate", "Turns the image: by its EXIF orientation, by quarter turns (lossless), or by any angle.",
                                           Rotate.self, streams: false) { p in
        { image, _, _ in
            var result = image
            if p.auto { result = try FilterStage.vips("autorot", result) }
            let turns = ((p.angle.truncatingRemainder(dividingBy: 360)) + 360).truncatingRemainder(dividingBy: 360)
            switch turns {
            case 0: return result
            case 90: return try FilterStage.vips("rot", result, ["angle": .string("d90")])
            case 180: return try FilterStage.vips("rot", result, ["angle": .string("d180")])
            case 270: return try FilterStage.vips("rot", result, ["angle": .string("d270")])
            default: return try FilterStage.vips("rotate", result, ["angle": .double(turns), "background": .doubles(p.background)])
            }
        }
    }

    struct Flip: OpParameters {
        enum Direction: String, CaseIterable, Sendable { case horizontal, vertical, both }
        var direction = Direction.horizontal

        static let bindings: [ParameterBinding<Self>] = [
            .choice("direction", \.direction, "\"horizontal\" mirrors left to right, \"vertical\" top to bottom."),
        ]
    }

    static let flip = FilterStage.define("flip", "Mirrors the image.", Flip.self, streams: false) { p in
        { image, _, _ in
            var result = image
            if p.direction != .vertical { result = try FilterStage.vips("flip", result, ["direction": .string("horizontal")]) }
            if p.direction != .horizontal { result = try FilterStage.vips("flip", result, ["direction": .string("vertical")]) }
            return result
        }
    }

    static let all = [crop, rotate, flip]
}
