import WorkbenchCore
import WorkbenchKernels

/// Filters that change tones and colours: `grayscale`, `brightness`, `contrast`, `saturation`,
/// `gamma`, `tint` (and `sepia`, see SepiaStage). Alpha is never changed.
enum ToneFilters {
    static let grayscale = Filter.define("grayscale", "Turns the image grey (one band, or two with alpha).", [], streams: true) { _ in
        { image, _, _ in try Filter.vips("colourspace", image, ["space": .string("b-w")]) }
    }

    static let brightness = Filter.define("brightness", "Scales every colour value: 0.5 halves the light, 2 doubles it.", [
        ParameterSpec("amount", .double(0...10), required: true, "The factor; 1 leaves the image as it is."),
    ]) { p in
        let amount = p.double("amount") ?? 1
        return { image, _, _ in
            try linear(image, scale: amount, offset: 0)
        }
    }

    static let contrast = Filter.define("contrast", "Spreads values away from mid-grey (above 1) or towards it (below 1).", [
        ParameterSpec("amount", .double(0...10), required: true, "The factor; 1 leaves the image as it is, 0 is flat grey."),
    ]) { p in
        let amount = p.double("amount") ?? 1
        return { image, _, _ in
            try linear(image, scale: amount, offset: 128 * (1 - amount))
        }
    }

    static let saturation = Filter.define("saturation", "Scales colourfulness (chroma in LCh): 0 is grey, 2 twice as vivid.", [
        ParameterSpec("amount", .double(0...10), required: true, "The factor; 1 leaves the image as it is."),
    ]) { p in
        let amount = p.double("amount") ?? 1
        return { image, _, _ in
            guard image.bands >= 3 else { return image }
            let lch = try Filter.vips("colourspace", image, ["space": .string("lch")])
            let scaled = try Filter.vips("linear", lch, ["a": .doubles([1, amount, 1] + (image.hasAlpha ? [1] : [])), "b": .doubles([0])])
            let back = try Filter.vips("colourspace", scaled, ["space": .string("srgb")])
            return try Filter.vips("cast", back, ["format": .enumeration(Int(image.format.rawValue))])
        }
    }

    static let gamma = Filter.define("gamma", "Brightens mid-tones (above 1) or darkens them (below 1), keeping black and white.", [
        ParameterSpec("gamma", .double(0.01...10), default: .double(2.2), "Output = input^(1/gamma) on 0…1."),
    ]) { p in
        let exponent = p.double("gamma") ?? 2.2
        return { image, _, _ in
            try Filter.vips("gamma", image, ["exponent": .double(exponent)])
        }
    }

    static let tint = Filter.define("tint", "Colours the image's light with one colour, like a toned print.", [
        ParameterSpec("colour", .numbers, required: true, aliases: ["color"], "The colour as [red, green, blue], 0…255."),
        ParameterSpec("amount", .double(0...1), default: .double(1), "0 leaves the image as it is, 1 is fully tinted."),
        VipsStages.engineParameter,
    ], check: { p in
        p.list("colour")?.count == 3 ? nil : "\"colour\" needs three numbers [red, green, blue]"
    }) { p in
        let rgb = p.list("colour")?.compactMap { value -> Double? in
            switch value { case .double(let d): return d; case .int(let i): return Double(i); default: return nil }
        } ?? [255, 255, 255]
        let matrix = ColorMatrix.tint(red: rgb[0], green: rgb[1], blue: rgb[2], amount: p.double("amount") ?? 1)
        let engine = ColourEngine(rawValue: p.string("engine") ?? "") ?? .swift
        return { image, _, _ in try image.applyingColourMatrix(matrix, engine: engine) }
    }

    /// `value · scale + offset` on the colour bands, clamped back to the image's format.
    private static func linear(_ image: VipsImage, scale: Double, offset: Double) throws -> VipsImage {
        let result = try Filter.vips("linear", image, ["a": .doubles(Filter.perBand(image, scale, alpha: 1)),
                                                       "b": .doubles(Filter.perBand(image, offset, alpha: 0))])
        return try Filter.vips("cast", result, ["format": .enumeration(Int(image.format.rawValue))])
    }

    static let all = [grayscale, brightness, contrast, saturation, gamma, tint]
}
