import WorkbenchCore

/// The parameter names this file's ops declare and read, each once (`ParameterName`).
enum GeometryParameter: String, ParameterName {
    case angle, auto, background, direction, gravity, height, left, smart, top, width
}

/// `crop`, `rotate` and `flip`.
enum GeometryFilters {
    static let crop = FilterStage.define("crop", "Cuts out a width × height box: at a position, by gravity, or where the interest is (smart crop).", [
        ParameterSpec(GeometryParameter.width, .int(1...10_000_000), required: true, pixels: true, "Width of the box in pixels (at most the image's)."),
        ParameterSpec(GeometryParameter.height, .int(1...10_000_000), required: true, pixels: true, "Height of the box in pixels (at most the image's)."),
        ParameterSpec(GeometryParameter.left, .int(0...10_000_000), pixels: true, "Left edge of the box; with \"top\", instead of \"gravity\"."),
        ParameterSpec(GeometryParameter.top, .int(0...10_000_000), pixels: true, "Top edge of the box; with \"left\", instead of \"gravity\"."),
        ParameterSpec(GeometryParameter.gravity, .choice(FilterStage.gravities), default: .string("centre"), "Where the box sits when no position is given."),
        ParameterSpec(GeometryParameter.smart, .choice(["attention", "entropy"]), "Find the box by content instead: \"attention\" (skin, saturation, edges) or \"entropy\" (detail)."),
    ], check: { p in
        (p.int(GeometryParameter.left) == nil) != (p.int(GeometryParameter.top) == nil) ? "give both \"left\" and \"top\", or neither" : nil
    }) { p in
        let width = p.int(GeometryParameter.width) ?? 1, height = p.int(GeometryParameter.height) ?? 1
        return { image, _, context in
            let w = min(width, image.width), h = min(height, image.height)
            if let interest = p.string(GeometryParameter.smart) {
                return try FilterStage.vips("smartcrop", image, ["width": .int(w), "height": .int(h), "interesting": .string(interest)],
                                       cancellation: context.cancellation)
            }
            var origin = FilterStage.position(p.word(GeometryParameter.gravity), outer: (image.width, image.height), inner: (w, h))
            if let left = p.int(GeometryParameter.left), let top = p.int(GeometryParameter.top) {
                guard left + w <= image.width && top + h <= image.height else {
                    throw VipsError.operationFailed(operation: "crop", message: "the box \(w)×\(h) at \(left),\(top) does not fit the \(image.width)×\(image.height) image")
                }
                origin = (left, top)
            }
            return try FilterStage.vips("extract_area", image, ["left": .int(origin.x), "top": .int(origin.y), "width": .int(w), "height": .int(h)])
        }
    }

    static let rotate = FilterStage.define("rotate", "Turns the image: by its EXIF orientation, by quarter turns (lossless), or by any angle.", [
        ParameterSpec(GeometryParameter.angle, .double(-360...360), default: .double(0), "Degrees clockwise; multiples of 90 are exact."),
        ParameterSpec(GeometryParameter.auto, .bool, default: .bool(false), "First turn upright by the EXIF orientation (decode does this by default)."),
        ParameterSpec(GeometryParameter.background, .colour, default: .list([.double(0)]), "Colour of the corners a free angle uncovers."),
    ], streams: false) { p in
        let angle = p.number(GeometryParameter.angle)
        let background = p.list(GeometryParameter.background)?.compactMap(\.number) ?? [0]
        return { image, _, _ in
            var result = image
            if p.bool(GeometryParameter.auto) == true { result = try FilterStage.vips("autorot", result) }
            let turns = ((angle.truncatingRemainder(dividingBy: 360)) + 360).truncatingRemainder(dividingBy: 360)
            switch turns {
            case 0: return result
            case 90: return try FilterStage.vips("rot", result, ["angle": .string("d90")])
            case 180: return try FilterStage.vips("rot", result, ["angle": .string("d180")])
            case 270: return try FilterStage.vips("rot", result, ["angle": .string("d270")])
            default: return try FilterStage.vips("rotate", result, ["angle": .double(turns), "background": .doubles(background)])
            }
        }
    }

    static let flip = FilterStage.define("flip", "Mirrors the image.", [
        ParameterSpec(GeometryParameter.direction, .choice(["horizontal", "vertical", "both"]), default: .string("horizontal"),
                      "\"horizontal\" mirrors left to right, \"vertical\" top to bottom."),
    ], streams: false) { p in
        let direction = p.word(GeometryParameter.direction)
        return { image, _, _ in
            var result = image
            if direction != "vertical" { result = try FilterStage.vips("flip", result, ["direction": .string("horizontal")]) }
            if direction != "horizontal" { result = try FilterStage.vips("flip", result, ["direction": .string("vertical")]) }
            return result
        }
    }

    static let all = [crop, rotate, flip]
}
