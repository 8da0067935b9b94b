import WorkbenchCore
import WorkbenchKernels

/// Filters whose effect depends on where a pixel is: `vignette`, `grain`. Alpha is never changed.
enum PositionKernelFilters {
    struct VignetteParameters: OpParameters {
        var strength = 0.5, radius = 0.5, softness = 0.5

        static let bindings: [ParameterBinding<Self>] = [
            .double("strength", \.strength, 0...1, "How dark the corners get: 0 not at all, 1 black."),
            .double("radius", \.radius, 0...2, "Where darkening starts: the distance from the centre, 1 = a corner."),
            .double("softness", \.softness, 0.01...2, "Over what distance it reaches full strength."),
        ]
    }

    static let vignette = KernelFilter.define("vignette", "Darkens the image towards its corners, as old lenses do.", VignetteParameters.self,
                                              swift: { p in KernelLibrary.vignette(strength: p.strength, radius: p.radius, softness: p.softness) },
       vips: { p in
        let map = VignetteMap(strength: p.strength, radius: p.radius, softness: p.softness)
        return { image, _ in
            let mask = try factorImage(map, width: image.width, height: image.height)
            return try image.onColourBands { try FilterStage.vips("multiply", $0, ["right": .image(mask)]) }
        }
    })

    struct GrainParameters: OpParameters {
        var amount = 0.1
        var seed = 0

        static let bindings: [ParameterBinding<Self>] = [
            .double("amount", \.amount, 0...1, "Strength: values move by up to half of it (of full scale)."),
            .int("seed", \.seed, 0...Int(Int32.max), "Another seed gives other grain."),
        ]
    }

    static let grain = KernelFilter.define("grain", "Adds film grain: fine noise, the same on every rerun for the same seed.", GrainParameters.self,
                                           swift: { p in KernelLibrary.grain(amount: p.amount, seed: p.seed) })

    static let all = [vignette, grain]

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
