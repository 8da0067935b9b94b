import WorkbenchCore
import WorkbenchKernels

/// The parameter names this file's ops declare and read, each once (`ParameterName`).
enum ColourParameter: String, ParameterName {
    case amount, colour, highlights, intensity, level, matrix, shadows
}

/// Filters that mix a pixel's colour bands: `channelMixer`, `sepia`, `tint`, `duotone`,
/// `threshold`, `grayscale`, `saturation`. Grey images are made sRGB first where a filter
/// needs colour; alpha is never changed.
enum ColourKernelFilters {
    static let channelMixer = KernelFilter.define("channelMixer", "Makes each output colour band a mix of the input's red, green and blue.", [
        ParameterSpec(ColourParameter.matrix, .matrix, required: true,
                      "3×3, row by row: [[rr, rg, rb], [gr, gg, gb], [br, bg, bb]], out red = rr·red + rg·green + rb·blue; −10…10."),
    ], check: { p in
        let m = p.matrix(ColourParameter.matrix)
        guard m.count == 3, m.allSatisfy({ $0.count == 3 }) else { return "\"matrix\" needs 3 rows of 3 numbers" }
        return m.joined().allSatisfy({ abs($0) <= 10 }) ? nil : "\"matrix\" takes numbers from −10 to 10"
    }, swift: { p in ColourMatrixKernel(name: "channelMixer", matrix: ColourMatrix(rows: p.matrix(ColourParameter.matrix))) },
       vips: { p in matrixByLibvips(ColourMatrix(rows: p.matrix(ColourParameter.matrix))) })

    static let sepia = KernelFilter.define("sepia", "Tones the image sepia (like Core Image's CISepiaTone).", [
        ParameterSpec(ColourParameter.intensity, .double(0...1), default: .double(1), "0 leaves the image as it is, 1 is full sepia."),
    ], swift: { p in ColourMatrixKernel(name: "sepia", matrix: .sepia(intensity: p.number(ColourParameter.intensity))) },
       vips: { p in matrixByLibvips(.sepia(intensity: p.number(ColourParameter.intensity))) })

    static let tint = KernelFilter.define("tint", "Colours the image's light with one colour, like a toned print.", [
        ParameterSpec(ColourParameter.colour, .colour, required: true, aliases: ["color"], "The colour as [red, green, blue], 0…255."),
        ParameterSpec(ColourParameter.amount, .double(0...1), default: .double(1), "0 leaves the image as it is, 1 is fully tinted."),
    ], check: { p in
        rgbProblem(p, ColourParameter.colour)
    }, swift: { p in ColourMatrixKernel(name: "tint", matrix: tintMatrix(p)) },
       vips: { p in matrixByLibvips(tintMatrix(p)) })

    static let duotone = KernelFilter.define("duotone", "Two colours for the whole image: shadows in one, highlights in the other, by luma.", [
        ParameterSpec(ColourParameter.shadows, .colour, default: .list([.int(20), .int(30), .int(80)]), "The colour black becomes, [red, green, blue] on 0…255."),
        ParameterSpec(ColourParameter.highlights, .colour, default: .list([.int(255), .int(230), .int(160)]), "The colour white becomes, [red, green, blue] on 0…255."),
    ], check: { p in
        rgbProblem(p, ColourParameter.shadows) ?? rgbProblem(p, ColourParameter.highlights)
    }, swift: { p in
        let (matrix, offset) = duotoneMatrix(p)
        return ColourMatrixKernel(name: "duotone", matrix: matrix, offset: offset)
    }, vips: { p in
        let (matrix, offset) = duotoneMatrix(p)
        return matrixByLibvips(matrix, offset: offset)
    })

    static let threshold = KernelFilter.define("threshold", "Pure black and white: white where the luma is at least the level.", [
        KernelFilter.level("level", default: 128, "Luma (0.2126 R + 0.7152 G + 0.0722 B) from which a pixel is white"),
    ], swift: { p in ThresholdKernel(level: p.number(ColourParameter.level)) },
       vips: { p in
        let level = p.number(ColourParameter.level)
        return { image, _ in
            try image.onColourBands { colour in
                let white = image.whiteValue
                // In double, so the comparison is exact for integer samples, as the kernel's is.
                let luma = colour.bands >= 3
                    ? try colour.cast(named: "double").recomb(rows: [[2126, 7152, 722]])
                    : try colour.cast(named: "double").linear(10000, 0)
                let mask = try FilterStage.vips("relational_const", luma, ["relational": .string("moreeq"), "c": .doubles([level * 10000 * white / 255])])
                let grey = try mask.linear(white / 255, 0)
                return try FilterStage.vips("bandjoin", nil, ["in": .images(Array(repeating: grey, count: colour.bands))])
            }
        }
    })

    static let grayscale = KernelFilter.define("grayscale", "Turns the image grey (one band, or two with alpha), by luminance in linear light.", [],
                                               unchanged: { $0.colourBands < 3 },
                                               swift: { _ in KernelLibrary.grayscale() },
                                               vips: { _ in { image, _ in
        try FilterStage.vips("colourspace", image, ["space": .string(image.isSixteenBit ? "grey16" : "b-w")])
    } })

    static let saturation = KernelFilter.define("saturation", "Scales colourfulness (chroma in CIE LCh): 0 is grey, 2 twice as vivid.", [
        ParameterSpec(ColourParameter.amount, .double(0...10), required: true, factor: true, "The factor; 1 leaves the image as it is."),
    ], unchanged: { $0.colourBands < 3 },
       swift: { p in KernelLibrary.saturation(p.number(ColourParameter.amount)) },
       vips: { p in
        let amount = p.number(ColourParameter.amount)
        return { image, _ in
            let back = image.isSixteenBit ? "rgb16" : "srgb"
            let lch = try FilterStage.vips("colourspace", image, ["space": .string("lch")])
            let scaled = try FilterStage.vips("linear", lch, ["a": .doubles([1, amount, 1] + (image.hasAlpha ? [1] : [])), "b": .doubles([0])])
            return try FilterStage.vips("colourspace", scaled, ["space": .string(back)]).rounded(like: image)
        }
    })

    static let all = [channelMixer, sepia, tint, duotone, threshold, grayscale, saturation]

    /// Why colour `name` is not three numbers on 0…255, or nil when it is.
    private static func rgbProblem(_ p: ParameterValues, _ name: ColourParameter) -> String? {
        let rgb = p.numbers(name)
        guard rgb.count == 3 else { return "\"\(name.rawValue)\" needs three numbers [red, green, blue]" }
        guard let bad = rgb.first(where: { !(0...255).contains($0) }) else { return nil }
        return "\"\(name.rawValue)\" takes red, green and blue from 0 to 255, not \(ParameterType.format(bad))"
    }

    private static func tintMatrix(_ p: ParameterValues) -> ColourMatrix {
        let rgb = p.numbers(ColourParameter.colour) + [255, 255, 255]
        return ColourMatrix.tint(red: rgb[0], green: rgb[1], blue: rgb[2], amount: p.number(ColourParameter.amount))
    }

    /// out = shadows + (highlights − shadows) · luma, as a matrix and an offset (0…255).
    private static func duotoneMatrix(_ p: ParameterValues) -> (ColourMatrix, SIMD3<Double>) {
        let s = p.numbers(ColourParameter.shadows) + [0, 0, 0], h = p.numbers(ColourParameter.highlights) + [0, 0, 0]
        let luma = [0.2126, 0.7152, 0.0722]
        let rows = (0..<3).map { c in luma.map { $0 * (h[c] - s[c]) / 255 } }
        return (ColourMatrix(rows: rows), SIMD3(s[0], s[1], s[2]))
    }

    /// libvips' `recomb` (in floating point) and an offset on 0…255; grey becomes sRGB first.
    static func matrixByLibvips(_ matrix: ColourMatrix, offset: SIMD3<Double> = .zero) -> KernelFilter.VipsTransform {
        { image, _ in
            let colourImage = try image.inColour()
            let white = colourImage.whiteValue
            return try colourImage.onColourBands { colour in
                let mixed = try colour.recomb(rows: matrix.rows)
                return try FilterStage.vips("linear", mixed, ["a": .doubles([1]), "b": .doubles([offset.x, offset.y, offset.z].map { $0 * white / 255 })])
            }
        }
    }
}
