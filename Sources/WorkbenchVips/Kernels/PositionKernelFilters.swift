import WorkbenchCore
import WorkbenchKernels

/// The parameter names this file's ops declare and read, each once (`ParameterName`).
enum PositionParameter: String, ParameterName {
    case amount, radius, seed, softness, strength
}

/// Filters whose effect depends on where a pixel is: `vignette`, `grain`. Alpha is never changed.
enum PositionKernelFilters {
    static let vignette = KernelFilter.define("vignette", "Darkens the image towards its corners, as old lenses do.", [
        ParameterSpec(PositionParameter.strength, .double(0...1), default: .double(0.5), "How dark the corners get: 0 not at all, 1 black."),
        ParameterSpec(PositionParameter.radius, .double(0...2), default: .double(0.5), "Where darkening starts: the distance from the centre, 1 = a corner."),
        ParameterSpec(PositionParameter.softness, .double(0.01...2), default: .double(0.5), "Over what distance it reaches full strength."),
    ], swift: { p in KernelLibrary.vignette(strength: p.number(PositionParameter.strength), radius: p.number(PositionParameter.radius), softness: p.number(PositionParameter.softness)) },
       vips: { p in
        let map = vignetteMap(p)
        return { image, _ in
            let mask = try factorImage(map, width: image.width, height: image.height)
            return try image.onColourBands { try FilterStage.vips("multiply", $0, ["right": .image(mask)]) }
        }
    })

    static let grain = KernelFilter.define("grain", "Adds film grain: fine noise, the same on every rerun for the same seed.", [
        ParameterSpec(PositionParameter.amount, .double(0...1), default: .double(0.1), "Strength: values move by up to half of it (of full scale)."),
        ParameterSpec(PositionParameter.seed, .int(0...Int(Int32.max)), default: .int(0), "Another seed gives other grain."),
    ], swift: { p in KernelLibrary.grain(amount: p.number(PositionParameter.amount), seed: p.integer(PositionParameter.seed)) })

    static let all = [vignette, grain]

    private static func vignetteMap(_ p: ParameterValues) -> VignetteMap {
        VignetteMap(strength: p.number(PositionParameter.strength), radius: p.number(PositionParameter.radius), softness: p.number(PositionParameter.softness))
    }

    /// The vignette's factor per pixel, computed by libvips from `xyz` the way `VignetteMap` does.
    private static func factorImage(_ map: VignetteMap, width: Int, height: Int) throws -> VipsImage {
        let cx = Double(width) / 2, cy = Double(height) / 2
        let xy = try FilterStage.vips("xyz", nil, ["width": .int(width), "height": .int(height)])
        let centred = try FilterStage.vips("linear", xy, ["a": .doubles([1, 1]), "b": .doubles([0.5 - cx, 0.5 - cy])])
        let squares = try FilterStage.vips("multiply", centred, ["right": .image(centred)])
        // bandmean of the two squares is half their sum.
        let squared = try FilterStage.vips("bandmean", squares).linear(2 / (cx * cx + cy * cy), 0)
        let distance = try FilterStage.vips("math2_const", squared, ["math2": .string("pow"), "c": .doubles([0.5])])
        let t = try distance.linear(1 / Double(map.softness), -Double(map.radius) / Double(map.softness)).clamped(0, 1)
        // smoothstep: t² (3 − 2t)
        let t2 = try FilterStage.vips("multiply", t, ["right": .image(t)])
        let smooth = try FilterStage.vips("multiply", t2, ["right": .image(t.linear(-2, 3))])
        return try smooth.linear(-Double(map.strength), 1)
    }
}
