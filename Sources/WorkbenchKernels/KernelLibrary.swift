/// The built-in kernels that are made of a generic shape (`PixelKernel`, `LinearLightKernel`)
/// and a map, each behind a concrete type.
///
/// Why: the host calls kernels through `any Kernel`, and for a generic type that call reaches
/// the unspecialised code, where every pixel's arithmetic goes through generic witnesses (measured
/// 3–6× slower). A concrete type's `process` calls its shape with the map's type known, so the
/// compiler specialises the loop.
public enum KernelLibrary {
    public static func grayscale() -> any Kernel { Grey() }
    public static func saturation(_ amount: Double) -> any Kernel { Saturation(kernel: LinearLightKernel(SaturationMap(amount: amount))) }
    public static func vignette(strength: Double, radius: Double, softness: Double) -> any Kernel {
        Vignette(kernel: PixelKernel(VignetteMap(strength: strength, radius: radius, softness: softness)))
    }
    public static func grain(amount: Double, seed: Int) -> any Kernel { Grain(kernel: PixelKernel(GrainMap(amount: amount, seed: seed))) }

    struct Grey: Kernel {
        let kernel = LinearLightKernel(GreyMap())
        var name: String { kernel.name }
        var inputColourBands: Int { kernel.inputColourBands }
        var outputColourBands: Int { kernel.outputColourBands }
        func process(_ region: KernelRegion, image: KernelImage, scratch: AnyObject?) throws(KernelError) {
            guard image.format == .uint8 else { return try kernel.process(region, image: image, scratch: scratch) }
            GreyTables8.shared.run(region, image)
        }
    }

    struct Saturation: Kernel {
        let kernel: LinearLightKernel<SaturationMap>
        var name: String { kernel.name }
        var inputColourBands: Int { kernel.inputColourBands }
        var outputColourBands: Int { kernel.outputColourBands }
        /// 8-bit images remember the colours they have seen (see `ColourMemo`).
        func makeScratch(for image: KernelImage) throws(KernelError) -> AnyObject? {
            image.format == .uint8 ? ColourMemo() : nil
        }
        func process(_ region: KernelRegion, image: KernelImage, scratch: AnyObject?) throws(KernelError) {
            guard let memo = scratch as? ColourMemo else { return try kernel.process(region, image: image, scratch: scratch) }
            memo.run(region, image, kernel.colour8)
        }
    }

    struct Vignette: SampleKernel {
        let kernel: PixelKernel<VignetteMap>
        var name: String { kernel.name }

        /// Every colour sample times the pixel's factor, row by row: the factor's vertical part
        /// is the row's, so only the horizontal one changes along it.
        func process<S: KernelSample>(_ region: KernelRegion, _ image: KernelImage, as: S.Type) {
            scaled(region, image, S.self)
        }

        private func scaled<S: KernelSample>(_ region: KernelRegion, _ image: KernelImage, _: S.Type) {
            let map = kernel.map, bands = image.bands, colour = image.colourBands
            let size = (width: image.width, height: image.height)
            for y in 0..<region.height {
                let input = region.inputRow(y, as: S.self), output = region.outputRow(y, as: S.self)
                var i = 0
                for x in 0..<region.width {
                    let factor = map.factor(x: region.left + x, y: region.top + y, size: size)
                    for b in 0..<colour { output[i + b] = S(clamping: input[i + b].floatValue * factor) }
                    if colour < bands { output[i + colour] = input[i + colour] }
                    i += bands
                }
            }
        }
    }

    struct Grain: Kernel {
        let kernel: PixelKernel<GrainMap>
        var name: String { kernel.name }
        func process(_ region: KernelRegion, image: KernelImage, scratch: AnyObject?) throws(KernelError) {
            try kernel.process(region, image: image, scratch: scratch)
        }
    }
}
