import WorkbenchCore
import WorkbenchKernels

/// The parameter names this file's ops declare and read, each once (`ParameterName`).
enum ToneParameter: String, ParameterName {
    case amount, gamma, inBlack, inWhite, levels, outBlack, outWhite, points, threshold
}

/// Filters that map every colour value through one tone curve: `invert`, `levels`, `curves`,
/// `posterize`, `solarize`, `brightness`, `contrast`, `gamma`. Alpha is never changed.
enum ToneKernelFilters {
    static let invert = KernelFilter.define("invert", "A negative: black becomes white and each colour its opposite.", [],
                                            swift: { _ in ToneCurves.invert() },
                                            vips: { _ in { image, _ in
        try image.onColourBands { colour in
            colour.isInteger ? try FilterStage.vips("invert", colour) : try colour.linear(-1, image.whiteValue)
        }
    } })

    static let levels = KernelFilter.define("levels", "Sets the black and white points and the mid-tones, like Photoshop's Levels.", [
        KernelFilter.level("inBlack", default: 0, "Input value that becomes black"),
        KernelFilter.level("inWhite", default: 255, "Input value that becomes white"),
        ParameterSpec(ToneParameter.gamma, .double(0.1...10), default: .double(1), "Mid-tones: above 1 brightens them, below 1 darkens them."),
        KernelFilter.level("outBlack", default: 0, "What black becomes"),
        KernelFilter.level("outWhite", default: 255, "What white becomes"),
    ], check: { p in
        p.number(ToneParameter.inWhite) > p.number(ToneParameter.inBlack) ? nil : "\"inWhite\" must be above \"inBlack\""
    }, swift: { p in
        ToneCurves.levels(inBlack: p.number(ToneParameter.inBlack), inWhite: p.number(ToneParameter.inWhite), gamma: p.number(ToneParameter.gamma),
                          outBlack: p.number(ToneParameter.outBlack), outWhite: p.number(ToneParameter.outWhite))
    }, vips: { p in
        let inBlack = p.number(ToneParameter.inBlack), inWhite = p.number(ToneParameter.inWhite), exponent = 1 / p.number(ToneParameter.gamma)
        let outBlack = p.number(ToneParameter.outBlack), outWhite = p.number(ToneParameter.outWhite)
        return { image, _ in
            try image.toneMapped { v, white in
                let t = try v.linear(255 / white / (inWhite - inBlack), -inBlack / (inWhite - inBlack)).clamped(0, 1)
                let curved = try FilterStage.vips("math2_const", t, ["math2": .string("pow"), "c": .doubles([exponent])])
                return try curved.linear((outWhite - outBlack) * white / 255, outBlack * white / 255)
            }
        }
    })

    static let curves = KernelFilter.define("curves", "A smooth tone curve through points, like the Curves tool of photo editors.", [
        ParameterSpec(ToneParameter.points, .matrix, required: true,
                      "[[x, y], …] on 0…255, x rising: input x becomes y; smooth and never overshooting between points (monotone cubic)."),
    ], check: { p in
        let points = p.matrix(ToneParameter.points)
        guard !points.isEmpty, points.allSatisfy({ $0.count == 2 }) else { return "\"points\" needs pairs [x, y], e.g. [[0, 0], [128, 150], [255, 255]]" }
        guard points.allSatisfy({ $0.allSatisfy { (0...255).contains($0) } }) else { return "\"points\" takes x and y on 0…255" }
        guard zip(points, points.dropFirst()).allSatisfy({ $0[0] < $1[0] }) else { return "the x of \"points\" must rise from one point to the next" }
        return nil
    }, swift: { p in
        ToneCurves.curves(p.matrix(ToneParameter.points).map { (x: $0[0], y: $0[1]) })
    })

    static let posterize = KernelFilter.define("posterize", "Reduces each colour to a few evenly spaced levels, like a screen print.", [
        ParameterSpec(ToneParameter.levels, .int(2...256), default: .int(4), "Tones per colour band, black and white included."),
    ], swift: { p in ToneCurves.posterize(levels: p.integer(ToneParameter.levels)) },
       vips: { p in
        let steps = Double(p.integer(ToneParameter.levels) - 1)
        return { image, _ in
            try image.toneMapped { v, white in
                try FilterStage.vips("round", v.linear(steps / white, 0), ["round": .string("rint")]).linear(white / steps, 0)
            }
        }
    })

    static let solarize = KernelFilter.define("solarize", "Inverts the values above a threshold, like a print exposed to light as it develops.", [
        KernelFilter.level("threshold", default: 128, "Values above this are inverted"),
    ], swift: { p in ToneCurves.solarize(threshold: p.number(ToneParameter.threshold)) },
       vips: { p in
        let threshold = p.number(ToneParameter.threshold)
        return { image, _ in
            try image.toneMapped { v, white in
                let above = try FilterStage.vips("relational_const", v, ["relational": .string("more"), "c": .doubles([threshold * white / 255])])
                return try FilterStage.vips("ifthenelse", above, ["in1": .image(v.linear(-1, white)), "in2": .image(v)])
            }
        }
    })

    static let brightness = KernelFilter.define("brightness", "Scales every colour value: 0.5 halves the light, 2 doubles it.", [
        ParameterSpec(ToneParameter.amount, .double(0...10), required: true, factor: true, "The factor; 1 leaves the image as it is."),
    ], swift: { p in ToneCurves.brightness(p.number(ToneParameter.amount)) },
       vips: { p in
        let amount = p.number(ToneParameter.amount)
        return { image, _ in try image.onColourBands { try $0.linear(amount, 0) } }
    })

    static let contrast = KernelFilter.define("contrast", "Spreads values away from mid-grey (above 1) or towards it (below 1).", [
        ParameterSpec(ToneParameter.amount, .double(0...10), required: true, factor: true, "The factor; 1 leaves the image as it is, 0 is flat grey (128 of 255)."),
    ], swift: { p in ToneCurves.contrast(p.number(ToneParameter.amount)) },
       vips: { p in
        let amount = p.number(ToneParameter.amount)
        return { image, _ in
            let mid = ToneCurves.midGrey * image.whiteValue
            return try image.onColourBands { try $0.linear(amount, mid * (1 - amount)) }
        }
    })

    static let gamma = KernelFilter.define("gamma", "Brightens mid-tones (above 1) or darkens them (below 1), keeping black and white.", [
        ParameterSpec(ToneParameter.gamma, .double(0.01...10), default: .double(2.2), "Output = input^(1/gamma) on 0…1."),
    ], swift: { p in ToneCurves.gamma(p.number(ToneParameter.gamma)) },
       vips: { p in
        let exponent = p.number(ToneParameter.gamma)
        return { image, _ in try image.onColourBands { try FilterStage.vips("gamma", $0, ["exponent": .double(exponent)]) } }
    })

    static let all = [invert, levels, curves, posterize, solarize, brightness, contrast, gamma]
}
