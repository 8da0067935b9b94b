import WorkbenchCore
import WorkbenchKernels

/// Filters that map every colour value through one tone curve: `invert`, `levels`, `curves`,
/// `posterize`, `solarize`, `brightness`, `contrast`, `gamma`. Alpha is never changed.
enum ToneKernelFilters {
    static let invert = KernelFilter.define("invert", "A negative: black becomes white and each colour its opposite.", NoParameters.self,
                                            swift: { _ in ToneCurves.invert() },
                                            vips: { _ in { image, _ in
        try image.onColourBands { colour in
            colour.isInteger ? try FilterStage.vips("invert", colour) : try colour.linear(-1, image.whiteValue)
        }
    } })

    struct LevelsParameters: OpParameters {
        var inBlack = 0.0, inWhite = 255.0, gamma = 1.0, outBlack = 0.0, outWhite = 255.0

        static let bindings: [ParameterBinding<Self>] = [
            .level("inBlack", \.inBlack, "Input value that becomes black"),
            .level("inWhite", \.inWhite, "Input value that becomes white"),
            .double("gamma", \.gamma, 0.1...10, "Mid-tones: above 1 brightens them, below 1 darkens them."),
            .level("outBlack", \.outBlack, "What black becomes"),
            .level("outWhite", \.outWhite, "What white becomes"),
        ]
    }

    static let levels = KernelFilter.define("levels", "Sets the black and white points and the mid-tones, like Photoshop's Levels.",
                                            LevelsParameters.self, check: { p in
        p.inWhite > p.inBlack ? nil : "\"inWhite\" must be above \"inBlack\""
    }, swift: { p in
        ToneCurves.levels(inBlack: p.inBlack, inWhite: p.inWhite, gamma: p.gamma, outBlack: p.outBlack, outWhite: p.outWhite)
    }, vips: { p in
        let (inBlack, inWhite, exponent, outBlack, outWhite) = (p.inBlack, p.inWhite, 1 / p.gamma, p.outBlack, p.outWhite)
        return { image, _ in
            try image.toneMapped { v, white in
                let t = try v.linear(255 / white / (inWhite - inBlack), -inBlack / (inWhite - inBlack)).clamped(0, 1)
                let curved = try FilterStage.vips("math2_const", t, ["math2": .string("pow"), "c": .doubles([exponent])])
                return try curved.linear((outWhite - outBlack) * white / 255, outBlack * white / 255)
            }
        }
    })

    struct CurvesParameters: OpParameters {
        var points: [[Double]] = []

        static let bindings: [ParameterBinding<Self>] = [
            .matrix("points", \.points, "[[x, y], …] on 0…255, x rising: input x becomes y; smooth and never overshooting between points (monotone cubic).",
                    .init(required: true)),
        ]
    }

    static let curves = KernelFilter.define("curves", "A smooth tone curve through points, like the Curves tool of photo editors.",
                                            CurvesParameters.self, check: { p in
        let points = p.points
        guard !points.isEmpty, points.allSatisfy({ $0.count == 2 }) else { return "\"points\" needs pairs [x, y], e.g. [[0, 0], [128, 150], [255, 255]]" }
        guard points.allSatisfy({ $0.allSatisfy { (0...255).contains($0) } }) else { return "\"points\" takes x and y on 0…255" }
        guard zip(points, points.dropFirst()).allSatisfy({ $0[0] < $1[0] }) else { return "the x of \"points\" must rise from one point to the next" }
        return nil
    }, swift: { p in
        ToneCurves.curves(p.points.map { (x: $0[0], y: $0[1]) })
    })

    struct PosterizeParameters: OpParameters {
        var levels = 4
        static let bindings: [ParameterBinding<Self>] = [.int("levels", \.levels, 2...256, "Tones per colour band, black and white included.")]
    }

    static let posterize = KernelFilter.define("posterize", "Reduces each colour to a few evenly spaced levels, like a screen print.",
                                               PosterizeParameters.self, swift: { p in ToneCurves.posterize(levels: p.levels) },
       vips: { p in
        let steps = Double(p.levels - 1)
        return { image, _ in
            try image.toneMapped { v, white in
                try FilterStage.vips("round", v.linear(steps / white, 0), ["round": .string("rint")]).linear(white / steps, 0)
            }
        }
    })

    struct SolarizeParameters: OpParameters {
        var threshold = 128.0
        static let bindings: [ParameterBinding<Self>] = [.level("threshold", \.threshold, "Values above this are inverted")]
    }

    static let solarize = KernelFilter.define("solarize", "Inverts the values above a threshold, like a print exposed to light as it develops.",
                                              SolarizeParameters.self, swift: { p in ToneCurves.solarize(threshold: p.threshold) },
       vips: { p in
        let threshold = p.threshold
        return { image, _ in
            try image.toneMapped { v, white in
                let above = try FilterStage.vips("relational_const", v, ["relational": .string("more"), "c": .doubles([threshold * white / 255])])
                return try FilterStage.vips("ifthenelse", above, ["in1": .image(v.linear(-1, white)), "in2": .image(v)])
            }
        }
    })

    /// A required factor: `brightness`'s and `saturation`'s.
    struct FactorParameters: OpParameters {
        var amount = 0.0
        static let bindings: [ParameterBinding<Self>] = [
            .double("amount", \.amount, 0...10, "The factor; 1 leaves the image as it is.", .init(required: true, factor: true)),
        ]
    }

    struct ContrastParameters: OpParameters {
        var amount = 0.0
        static let bindings: [ParameterBinding<Self>] = [
            .double("amount", \.amount, 0...10, "The factor; 1 leaves the image as it is, 0 is flat grey (128 of 255).", .init(required: true, factor: true)),
        ]
    }

    static let brightness = KernelFilter.define("brightness", "Scales every colour value: 0.5 halves the light, 2 doubles it.", FactorParameters.self,
                                                swift: { p in ToneCurves.brightness(p.amount) },
       vips: { p in
        let amount = p.amount
        return { image, _ in try image.onColourBands { try $0.linear(amount, 0) } }
    })

    static let contrast = KernelFilter.define("contrast", "Spreads values away from mid-grey (above 1) or towards it (below 1).", ContrastParameters.self,
                                              swift: { p in ToneCurves.contrast(p.amount) },
       vips: { p in
        let amount = p.amount
        return { image, _ in
            let mid = ToneCurves.midGrey * image.whiteValue
            return try image.onColourBands { try $0.linear(amount, mid * (1 - amount)) }
        }
    })

    struct GammaParameters: OpParameters {
        var gamma = 2.2
        static let bindings: [ParameterBinding<Self>] = [.double("gamma", \.gamma, 0.01...10, "Output = input^(1/gamma) on 0…1.")]
    }

    static let gamma = KernelFilter.define("gamma", "Brightens mid-tones (above 1) or darkens them (below 1), keeping black and white.",
                                           GammaParameters.self, swift: { p in ToneCurves.gamma(p.gamma) },
       vips: { p in
        let exponent = p.gamma
        return { image, _ in try image.onColourBands { try FilterStage.vips("gamma", $0, ["exponent": .double(exponent)]) } }
    })

    static let all = [invert, levels, curves, posterize, solarize, brightness, contrast, gamma]
}
