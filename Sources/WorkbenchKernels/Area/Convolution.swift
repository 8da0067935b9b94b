/// A convolution: each output sample is `Σ mask · input / scale + offset` over the mask's
/// square around the pixel (every band), as libvips' `conv` computes it. Masks are up to 7×7
/// with odd sides; integer masks on 8- and 16-bit images sum in integers.
public struct Convolution: Kernel {
    public let mask: [[Double]]
    public let scale: Double
    public let offset: Double
    public init(mask: [[Double]], scale: Double, offset: Double) {
        self.mask = mask
        self.scale = scale == 0 ? 1 : scale
        self.offset = offset
    }
    public var name: String { "convolve" }
    public var margin: Int { max(mask.count, mask.first?.count ?? 1) / 2 }

    private var isInteger: Bool { mask.allSatisfy { $0.allSatisfy { $0 == $0.rounded() && abs($0) < 1_048_576.0 } } }

    public func process(_ region: KernelRegion, image: KernelImage, scratch: AnyObject?) throws(KernelError) {
        switch image.format {
        case .uint8: isInteger ? integers(region, image, UInt8.self) : floats(region, image, UInt8.self)
        case .uint16: isInteger ? integers(region, image, UInt16.self) : floats(region, image, UInt16.self)
        case .float: floats(region, image, Float.self)
        }
    }

    /// Rows of the mask with their offsets from the centre, zero weights dropped.
    private func taps<W>(_ weight: (Double) -> W) -> [(dy: Int, dx: Int, weight: W)] {
        let h = mask.count, w = mask.first?.count ?? 0
        var taps: [(Int, Int, W)] = []
        for (my, row) in mask.enumerated() {
            for (mx, value) in row.enumerated() where value != 0 {
                taps.append((my - h / 2, mx - w / 2, weight(value)))
            }
        }
        return taps
    }

    private func integers<S: KernelSample & FixedWidthInteger>(_ region: KernelRegion, _ image: KernelImage, _: S.Type) {
        let taps = taps { Int($0) }, bands = image.bands, m = margin
        let divisor = Float(scale), add = Float(offset)
        for y in 0..<region.height {
            let output = region.outputRow(y, as: S.self)
            let rows = taps.map { region.inputRow(y + $0.dy, as: S.self) + ($0.dx + m) * bands }
            for i in 0..<(region.width * bands) {
                var sum = 0
                for (t, tap) in taps.enumerated() { sum += tap.weight * Int(rows[t][i]) }
                output[i] = S(clamping: Float(sum) / divisor + add)
            }
        }
    }

    private func floats<S: KernelSample>(_ region: KernelRegion, _ image: KernelImage, _: S.Type) {
        let taps = taps { Float($0) }, bands = image.bands, m = margin
        let divisor = Float(scale), add = Float(offset)
        for y in 0..<region.height {
            let output = region.outputRow(y, as: S.self)
            let rows = taps.map { region.inputRow(y + $0.dy, as: S.self) + ($0.dx + m) * bands }
            for i in 0..<(region.width * bands) {
                var sum: Float = 0
                for (t, tap) in taps.enumerated() { sum += tap.weight * rows[t][i].floatValue }
                output[i] = S(clamping: sum / divisor + add)
            }
        }
    }
}
