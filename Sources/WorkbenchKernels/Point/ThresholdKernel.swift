/// Black or white by luma: every colour band becomes white where `0.2126 R + 0.7152 G +
/// 0.0722 B` (or the grey value) is at least `level` (0…255), else black; alpha is copied.
///
/// Integer images compare in exact integer arithmetic (weights ×10000), so a pixel exactly at
/// the level always goes the same way.
public struct ThresholdKernel: SampleKernel {
    public let level: Double
    public init(level: Double) { self.level = level }
    public var name: String { "threshold" }

    public func process<S: KernelSample>(_ region: KernelRegion, _ image: KernelImage, as: S.Type) {
        threshold(region, image, S.self)
    }

    private func threshold<S: KernelSample>(_ region: KernelRegion, _ image: KernelImage, _: S.Type) {
        let bands = image.bands, colour = image.colourBands
        // Luma ×10000 against the level ×10000 on the image's scale (exact for integer samples).
        let limit = level * 10000 * Double(image.max) / 255
        let white = S(clamping: image.max), black = S(clamping: 0)
        for y in 0..<region.height {
            let input = region.inputRow(y, as: S.self), output = region.outputRow(y, as: S.self)
            var i = 0
            for _ in 0..<region.width {
                let luma: Double = colour >= 3
                    ? 2126 * Double(input[i].floatValue) + 7152 * Double(input[i + 1].floatValue) + 722 * Double(input[i + 2].floatValue)
                    : 10000 * Double(input[i].floatValue)
                let value = luma >= limit ? white : black
                for b in 0..<colour { output[i + b] = value }
                if image.hasAlpha { output[i + colour] = input[i + colour] }
                i += bands
            }
        }
    }
}
