import WorkbenchCore
import WorkbenchKernels

/// Filters that mix a pixel's colour bands: `channelMixer`, `sepia`, `tint`, `duotone`,
/// `threshold`, `grayscale`, `saturation`. Grey images are made sRGB first where a filter
/// needs colour; alpha is never changed.
enum ColourKernelFilters {
    struct ChannelMixerParameters: OpParameters {
        var matrix: [[Double]] = []
        static let bindings: [ParameterBinding<Self>] = [
            .matrix("matrix", \.matrix, "3×3, row by row: [[rr, rg, rb], [gr, gg, gb], [br, bg, bb]], out red = rr·red + rg·green + rb·blue; −10…10.",
                    .init(required: true)),
        ]
    }

    static let channelMixer = KernelFilter.define("channelMixer", "Makes each output colour band a mix of the input's red, green and blue.",
                                                  ChannelMixerParameters.self, check: { p in
        let m = p.matrix
        guard m.count == 3, m.allSatisfy({ $0.count == 3 }) else { return "\"matrix\" needs 3 rows of 3 numbers" }
        return m.joined().allSatisfy({ abs($0) <= 10 }) ? nil : "\"matrix\" takes numbers from −10 to 10"
    }, swift: { p in ColourMatrixKernel(name: "channelMixer", matrix: ColourMatrix(rows: p.matrix)) },
       vips: { p in matrixByLibvips(ColourMatrix(rows: p.matrix)) })

    struct SepiaParameters: OpParameters {
        var intensity = 1.0
        static let bindings: [ParameterBinding<Self>] = [.double("intensity", \.intensity, 0...1, "0 leaves the image as it is, 1 is full sepia.")]
    }

    static let sepia = KernelFilter.define("sepia", "Tones the image sepia (like Core Image's CISepiaTone).", SepiaParameters.self,
                                           swift: { p in ColourMatrixKernel(name: "sepia", matrix: .sepia(intensity: p.intensity)) },
                                           vips: { p in matrixByLibvips(.sepia(intensity: p.intensity)) })

    struct TintParameters: OpParameters {
        var colour: [Double] = []
        var amount = 1.0

        static let bindings: [ParameterBinding<Self>] = [
            .numbers("colour", \.colour, "The colour as [red, green, blue], 0…255.", type: .colour, .init(required: true, aliases: ["color"])),
            .double("amount", \.amount, 0...1, "0 leaves the image as it is, 1 is fully tinted."),
        ]

        var matrix: ColourMatrix {
            let rgb = colour + [255, 255, 255]
            return ColourMatrix.tint(red: rgb[0], green: rgb[1], blue: rgb[2], amount: amount)
        }
    }

    static let tint = KernelFilter.define("tint", "Colours the image's light with one colour, like a toned print.", TintParameters.self, check: { p in
        rgbProblem(p.colour, "colour")
    }, swift: { p in ColourMatrixKernel(name: "tint", matrix: p.matrix) },
       vips: { p in matrixByLibvips(p.matrix) })

    struct DuotoneParameters: OpParameters {
        var shadows: [Double] = [20, 30, 80]
        var highlights: [Double] = [255, 230, 160]

        static let bindings: [ParameterBinding<Self>] = [
            .numbers("shadows", \.shadows, "The colour black becomes, [red, green, blue] on 0…255.", type: .colour),
            .numbers("highlights", \.highlights, "The colour white becomes, [red, green, blue] on 0…255.", type: .colour),
        ]

        /// out = shadows + (highlights − shadows) · luma, as a matrix and an offset (0…255).
        var matrix: (ColourMatrix, SIMD3<Double>) {
            let s = shadows + [0, 0, 0], h = highlights + [0, 0, 0]
            let luma = [0.2126, 0.7152, 0.0722]
            let rows = (0..<3).map { c in luma.map { $0 * (h[c] - s[c]) / 255 } }
            return (ColourMatrix(rows: rows), SIMD3(s[0], s[1], s[2]))
        }
    }

    static let duotone = KernelFilter.define("duotone", "Two colours for the whole image: shadows in one, highlights in the other, by luma.",
                                             DuotoneParameters.self, check: { p in
        rgbProblem(p.shadows, "shadows") ?? rgbProblem(p.highlights, "highlights")
    }, swift: { p in
        let (matrix, offset) = p.matrix
        return ColourMatrixKernel(name: "duotone", matrix: matrix, offset: offset)
    }, vips: { p in
        let (matrix, offset) = p.matrix
        return matrixByLibvips(matrix, offset: offset)
    })

    struct ThresholdParameters: OpParameters {
        var level = 128.0
        static let bindings: [ParameterBinding<Self>] = [.level("level", \.level, "Luma (0.2126 R + 0.7152 G + 0.0722 B) from which a pixel is white")]
    }

    static let threshold = KernelFilter.define("threshold", "Pure black and white: white where the luma is at least the level.",
                                               ThresholdParameters.self, swift: { p in ThresholdKernel(level: p.level) },
       vips: { p in
        let level = p.level
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

    static let grayscale = KernelFilter.define("grayscale", "Turns the image grey (one band, or two with alpha), by luminance in linear light.", NoParameters.self,
                                               unchanged: { $0.colourBands < 3 },
                                               swift: { _ in KernelLibrary.grayscale() },
                                               vips: { _ in { image, _ in
        try FilterStage.vips("colourspace", image, ["space": .string(image.isSixteenBit ? "grey16" : "b-w")])
    } })

    static let saturation = KernelFilter.define("saturation", "Scales colourfulness (chroma in CIE LCh): 0 is grey, 2 twice as vivid.",
                                                ToneKernelFilters.FactorParameters.self, unchanged: { $0.colourBands < 3 },
       swift: { p in KernelLibrary.saturation(p.amount) },
       vips: { p in
        let amount = p.amount
        return { image, _ in
            let back = image.isSixteenBit ? "rgb16" : "srgb"
            let lch = try FilterStage.vips("colourspace", image, ["space": .string("lch")])
            let scaled = try FilterStage.vips("linear", lch, ["a": .doubles([1, amount, 1] + (image.hasAlpha ? [1] : [])), "b": .doubles([0])])
            return try FilterStage.vips("colourspace", scaled, ["space": .string(back)]).rounded(like: image)
        }
    })

    static let all = [channelMixer, sepia, tint, duotone, threshold, grayscale, saturation]

    /// Why the colour parameter `name` is not three numbers on 0…255, or nil when it is.
    private static func rgbProblem(_ rgb: [Double], _ name: String) -> String? {
        guard rgb.count == 3 else { return "\"\(name)\" needs three numbers [red, green, blue]" }
        guard let bad = rgb.first(where: { !(0...255).contains($0) }) else { return nil }
        return "\"\(name)\" takes red, green and blue from 0 to 255, not \(ParameterType.format(bad))"
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
