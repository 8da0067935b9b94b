import WorkbenchCore

/// The parameter names this file's ops declare and read, each once (`ParameterName`).
enum DetailParameter: String, ParameterName {
    case amount, flat, sigma, threshold
}

/// `blur` and `sharpen`.
enum DetailFilters {
    static let blur = FilterStage.define("blur", "Gaussian blur.", [
        ParameterSpec(DetailParameter.sigma, .double(0.3...1000), required: true, pixels: true, "Radius of the blur (standard deviation in pixels)."),
    ]) { p in
        let sigma = p.number(DetailParameter.sigma)
        return { image, _, _ in try FilterStage.vips("gaussblur", image, ["sigma": .double(sigma)]) }
    }

    static let sharpen = FilterStage.define("sharpen", "Sharpens edges (libvips' unsharp mask on lightness, so colours do not fringe).", [
        ParameterSpec(DetailParameter.sigma, .double(0.000001...10), default: .double(0.5), pixels: true, "Radius of the mask: 0.5 for fine detail, 1–2 for larger features."),
        ParameterSpec(DetailParameter.amount, .double(0...1_000_000), default: .double(3), "Strength on edges (libvips' m2)."),
        ParameterSpec(DetailParameter.flat, .double(0...1_000_000), default: .double(0), "Strength on flat areas (libvips' m1)."),
        ParameterSpec(DetailParameter.threshold, .double(0...1_000_000), default: .double(2), "Differences below this count as flat (libvips' x1)."),
    ]) { p in
        let arguments: [String: VipsArgumentValue] = [
            "sigma": .double(p.number(DetailParameter.sigma)), "m2": .double(p.number(DetailParameter.amount)),
            "m1": .double(p.number(DetailParameter.flat)), "x1": .double(p.number(DetailParameter.threshold)),
        ]
        return { image, _, _ in try FilterStage.vips("sharpen", image, arguments) }
    }

    static let all = [blur, sharpen]
}
