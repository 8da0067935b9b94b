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

    /// The mask as column × row, when it is one (every row a multiple of one row): then two
    /// passes of one column and one row do the work of the whole square.
    public var separated: (column: [Float], row: [Float])? {
        guard let base = mask.first(where: { $0.contains { $0 != 0 } }), let pivot = base.firstIndex(where: { $0 != 0 }) else { return nil }
        var column: [Float] = []
        for row in mask {
            let factor = row[pivot] / base[pivot]
            guard zip(row, base).allSatisfy({ abs($0 - factor * $1) <= 1e-9 * max(1, abs($0)) }) else { return nil }
            column.append(Float(factor))
        }
        return mask.count > 1 && base.count > 1 ? (column, base.map(Float.init)) : nil
    }

    private var isInteger: Bool { mask.allSatisfy { $0.allSatisfy { $0 == $0.rounded() && abs($0) < 1_048_576.0 } } }

    /// One row of sums for one thread (and, for a separable mask, one row of column sums),
    /// grown to the widest region it sees.
    final class Scratch {
        var integers: [Int32] = []
        var floats: [Float] = []
        var columns: [Float] = []
    }

    public func makeScratch(for image: KernelImage) throws(KernelError) -> AnyObject? { Scratch() }

    public func process(_ region: KernelRegion, image: KernelImage, scratch: AnyObject?) throws(KernelError) {
        let scratch = scratch as? Scratch ?? Scratch()
        let count = region.width * image.bands
        if let (column, row) = separated {
            let wide = (region.width + 2 * margin) * image.bands
            if scratch.columns.count < wide { scratch.columns = Array(repeating: 0, count: wide) }
            if scratch.floats.count < count { scratch.floats = Array(repeating: 0, count: count) }
            scratch.columns.withUnsafeMutableBufferPointer { columns in
                scratch.floats.withUnsafeMutableBufferPointer { totals in
                    switch image.format {
                    case .uint8: separable(region, image, UInt8.self, column, row, columns, totals)
                    case .uint16: separable(region, image, UInt16.self, column, row, columns, totals)
                    case .float: separable(region, image, Float.self, column, row, columns, totals)
                    }
                }
            }
            return
        }
        // Integer sums of 8-bit samples fit 32 bits for any mask up to 7×7 with weights below 2^16.
        let integer = isInteger && image.format == .uint8 && mask.joined().allSatisfy { abs($0) < 65536 }
        if integer {
            if scratch.integers.count < count { scratch.integers = Array(repeating: 0, count: count) }
            scratch.integers.withUnsafeMutableBufferPointer { integers(region, image, $0) }
            return
        }
        if scratch.floats.count < count { scratch.floats = Array(repeating: 0, count: count) }
        scratch.floats.withUnsafeMutableBufferPointer { sums in
            switch image.format {
            case .uint8: floats(region, image, UInt8.self, sums)
            case .uint16: floats(region, image, UInt16.self, sums)
            case .float: floats(region, image, Float.self, sums)
            }
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

    /// Tap by tap, each adds its weighted input row to the row of sums: a loop the compiler
    /// vectorises, instead of a gather of every tap per sample.
    private func integers(_ region: KernelRegion, _ image: KernelImage, _ sums: UnsafeMutableBufferPointer<Int32>) {
        let taps = taps { Int32($0) }, bands = image.bands, m = margin, count = region.width * bands
        let divisor = Float(scale), add = Float(offset)
        for y in 0..<region.height {
            for i in 0..<count { sums[i] = 0 }
            for tap in taps {
                let row = region.inputRow(y + tap.dy, as: UInt8.self) + (tap.dx + m) * bands
                let weight = tap.weight
                for i in 0..<count { sums[i] &+= weight &* Int32(row[i]) }
            }
            let output = region.outputRow(y, as: UInt8.self)
            for i in 0..<count { output[i] = UInt8(clamping: Float(sums[i]) / divisor + add) }
        }
    }

    private func floats<S: KernelSample>(_ region: KernelRegion, _ image: KernelImage, _: S.Type, _ sums: UnsafeMutableBufferPointer<Float>) {
        let taps = taps { Float($0) }, bands = image.bands, m = margin, count = region.width * bands
        let divisor = Float(scale), add = Float(offset)
        for y in 0..<region.height {
            for i in 0..<count { sums[i] = 0 }
            for tap in taps {
                let row = region.inputRow(y + tap.dy, as: S.self) + (tap.dx + m) * bands
                let weight = tap.weight
                for i in 0..<count { sums[i] += weight * row[i].floatValue }
            }
            let output = region.outputRow(y, as: S.self)
            for i in 0..<count { output[i] = S(clamping: sums[i] / divisor + add) }
        }
    }

    /// Column pass into a row of sums as wide as the input, then the row pass from it.
    private func separable<S: KernelSample>(_ region: KernelRegion, _ image: KernelImage, _: S.Type, _ column: [Float], _ row: [Float],
                                            _ sums: UnsafeMutableBufferPointer<Float>, _ totals: UnsafeMutableBufferPointer<Float>) {
        guard let start = sums.baseAddress else { return }
        let bands = image.bands, m = margin, count = region.width * bands
        let wide = (region.width + 2 * m) * bands
        let h = column.count, w = row.count
        // An odd side shorter than the margin's square starts further in.
        let rowStart = m - w / 2, columnStart = -(h / 2)
        let divisor = Float(scale), add = Float(offset)
        for y in 0..<region.height {
            for i in 0..<wide { sums[i] = 0 }
            for (k, weight) in column.enumerated() where weight != 0 {
                let input = region.inputRow(y + columnStart + k, as: S.self)
                for i in 0..<wide { sums[i] += weight * input[i].floatValue }
            }
            for i in 0..<count { totals[i] = 0 }
            for (k, weight) in row.enumerated() where weight != 0 {
                let shifted = start + (rowStart + k) * bands
                for i in 0..<count { totals[i] += weight * shifted[i] }
            }
            let output = region.outputRow(y, as: S.self)
            for i in 0..<count { output[i] = S(clamping: totals[i] / divisor + add) }
        }
    }
}
