/// A function of one pixel's colour (and where it is): the shape of point kernels that mix
/// bands or depend on position (`vignette`, `grain`, `saturation`, …).
public protocol PixelMap: Sendable {
    var name: String { get }
    /// 0: any image; 3: colour images (grey ones are made sRGB first).
    var inputColourBands: Int { get }
    /// 0: as many as in; 1: grey out.
    var outputColourBands: Int { get }
    /// The output colour for `colour` (its colour bands on 0…1 in the first lanes) at pixel
    /// (`x`, `y`) of an image of `size`.
    func map(_ colour: SIMD4<Float>, x: Int, y: Int, size: (width: Int, height: Int)) -> SIMD4<Float>
}

extension PixelMap {
    public var inputColourBands: Int { 0 }
    public var outputColourBands: Int { 0 }
}

/// Runs a `PixelMap` over every pixel in every format; alpha is copied.
public struct PixelKernel<Map: PixelMap>: SampleKernel {
    public let map: Map
    public init(_ map: Map) { self.map = map }

    public var name: String { map.name }
    public var inputColourBands: Int { map.inputColourBands }
    public var outputColourBands: Int { map.outputColourBands }

    public func process<S: KernelSample>(_ region: KernelRegion, _ image: KernelImage, as: S.Type) {
        mapped(region, image, S.self)
    }

    private func mapped<S: KernelSample>(_ region: KernelRegion, _ image: KernelImage, _: S.Type) {
        let inColour = image.colourBands, inBands = image.bands
        let outColour = map.outputColourBands > 0 ? map.outputColourBands : inColour
        let outBands = outColour + (image.hasAlpha ? 1 : 0)
        let scale = 1 / image.max, full = image.max, size = (image.width, image.height)
        for y in 0..<region.height {
            let input = region.inputRow(y, as: S.self), output = region.outputRow(y, as: S.self)
            for x in 0..<region.width {
                let i = x * inBands, o = x * outBands
                var colour = SIMD4<Float>(repeating: 0)
                if inColour == 3 {
                    colour = SIMD4(input[i].floatValue, input[i + 1].floatValue, input[i + 2].floatValue, 0) * scale
                } else {
                    for b in 0..<inColour { colour[b] = input[i + b].floatValue * scale }
                }
                let result = map.map(colour, x: region.left + x, y: region.top + y, size: size) * full
                if outColour == 3 {
                    output[o] = S(clamping: result[0])
                    output[o + 1] = S(clamping: result[1])
                    output[o + 2] = S(clamping: result[2])
                } else {
                    for b in 0..<outColour { output[o + b] = S(clamping: result[b]) }
                }
                if image.hasAlpha { output[o + outColour] = input[i + inColour] }
            }
        }
    }
}
