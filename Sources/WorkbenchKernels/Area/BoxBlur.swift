/// The mean of the (2·radius + 1)² square around each pixel, every band (alpha too, as libvips'
/// convolutions do). Running sums make the cost per pixel the same for any radius: a column sum
/// per column slides down the region, and a window sum slides along each row.
public struct BoxBlur: Kernel {
    public let radius: Int
    public init(radius: Int) { self.radius = radius }
    public var name: String { "boxBlur" }
    public var margin: Int { radius }

    /// Column sums for one thread, grown to the widest region it sees.
    final class Scratch {
        var integers: [Int] = []
        var doubles: [Double] = []
    }

    public func makeScratch(for image: KernelImage) throws(KernelError) -> AnyObject? { Scratch() }

    public func process(_ region: KernelRegion, image: KernelImage, scratch: AnyObject?) throws(KernelError) {
        let scratch = scratch as? Scratch ?? Scratch()
        let count = (region.width + 2 * radius) * image.bands
        switch image.format {
        case .uint8:
            if scratch.integers.count < count { scratch.integers = Array(repeating: 0, count: count) }
            scratch.integers.withUnsafeMutableBufferPointer { integers(region, image, UInt8.self, $0) }
        case .uint16:
            if scratch.integers.count < count { scratch.integers = Array(repeating: 0, count: count) }
            scratch.integers.withUnsafeMutableBufferPointer { integers(region, image, UInt16.self, $0) }
        case .float:
            if scratch.doubles.count < count { scratch.doubles = Array(repeating: 0, count: count) }
            scratch.doubles.withUnsafeMutableBufferPointer { floats(region, image, $0) }
        }
    }

    private func integers<S: FixedWidthInteger>(_ region: KernelRegion, _ image: KernelImage, _: S.Type,
                                                 _ sums: UnsafeMutableBufferPointer<Int>) {
        let bands = image.bands, r = radius, span = 2 * r + 1
        let columns = (region.width + 2 * r) * bands
        let area = span * span, half = area / 2
        for c in 0..<columns { sums[c] = 0 }
        for k in -r...r {
            let row = region.inputRow(k, as: S.self)
            for c in 0..<columns { sums[c] += Int(row[c]) }
        }
        for y in 0..<region.height {
            if y > 0 {
                let adding = region.inputRow(y + r, as: S.self), leaving = region.inputRow(y - r - 1, as: S.self)
                for c in 0..<columns { sums[c] += Int(adding[c]) - Int(leaving[c]) }
            }
            let output = region.outputRow(y, as: S.self)
            for b in 0..<bands {
                var window = 0
                for j in 0..<span { window += sums[j * bands + b] }
                var x = 0
                while true {
                    output[x * bands + b] = S(truncatingIfNeeded: (window + half) / area)
                    x += 1
                    if x == region.width { break }
                    window += sums[(x + 2 * r) * bands + b] - sums[(x - 1) * bands + b]
                }
            }
        }
    }

    private func floats(_ region: KernelRegion, _ image: KernelImage, _ sums: UnsafeMutableBufferPointer<Double>) {
        let bands = image.bands, r = radius, span = 2 * r + 1
        let columns = (region.width + 2 * r) * bands
        let area = Double(span * span)
        for c in 0..<columns { sums[c] = 0 }
        for k in -r...r {
            let row = region.inputRow(k, as: Float.self)
            for c in 0..<columns { sums[c] += Double(row[c]) }
        }
        for y in 0..<region.height {
            if y > 0 {
                let adding = region.inputRow(y + r, as: Float.self), leaving = region.inputRow(y - r - 1, as: Float.self)
                for c in 0..<columns { sums[c] += Double(adding[c]) - Double(leaving[c]) }
            }
            let output = region.outputRow(y, as: Float.self)
            for b in 0..<bands {
                var window = 0.0
                for j in 0..<span { window += sums[j * bands + b] }
                var x = 0
                while true {
                    output[x * bands + b] = Float(window / area)
                    x += 1
                    if x == region.width { break }
                    window += sums[(x + 2 * r) * bands + b] - sums[(x - 1) * bands + b]
                }
            }
        }
    }
}
