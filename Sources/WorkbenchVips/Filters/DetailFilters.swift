import WorkbenchCore

/// `blur` and `sharpen`.
enum DetailFilters {
    struct Blur: OpParameters {
        var sigma = 0.0

        static let bindings: [ParameterBinding<Self>] = [
            .double("sigma", \.sigma, 0.3...1000, "Radius of the blur (standard deviation in pixels).", .init(required: true, pixels: true)),
        ]
    }

    static let blur = FilterStage.define("blur", "Gaussian blur.", Blur.self) { p in
        { image, _, _ in try FilterStage.vips("gaussblur", image, ["sigma": .double(p.sigma)]) }
    }

    struct Sharpen: OpParameters {
        var sigma = 0.5, amount = 3.0, flat = 0.0, threshold = 2.0

        static let bindings: [ParameterBinding<Self>] = [
            .double("sigma", \.sigma, 0.000001...10, "Radius of the mask: 0.5 for fine detail, 1–2 for larger features.", .init(pixels: true)),
            .double("amount", \.amount, 0...1_000_000, "Strength on edges (libvips' m2)."),
            .double("flat", \.flat, 0...1_000_000, "Strength on flat areas (libvips' m1)."),
            .double("threshold", \.threshold, 0...1_000_000, "Differences below this count as flat (libvips' x1)."),
        ]
    }

    static let sharpen = FilterStage.define("sharpen", "Sharpens edges (libvips' unsharp mask on lightness, so colours do not fringe).",
                                            Sharpen.self) { p in
        let arguments: [String: VipsArgumentValue] = ["sigma": .double(p.sigma), "m2": .double(p.amount), "m1": .double(p.flat), "x1": .double(p.threshold)]
        return { image, _, _ in try FilterStage.vips("sharpen", image, arguments) }
    }

    static let all = [blur, sharpen]
}
