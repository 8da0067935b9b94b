/// Squares of `size`×`size` pixels, each the mean of the pixels it covers (every band). The
/// grid starts at the image's top-left corner; squares cut by the right or bottom edge average
/// the pixels inside the image only.
public struct Pixelate: SampleKernel {
    public let size: Int
    public init(size: Int) { self.size = size }
    public var name: String { "pixelate" }
    // The square of any pixel lies within size − 1 pixels of it.
    public var margin: Int { size - 1 }

    public func process<S: KernelSample>(_ region: KernelRegion, _ image: KernelImage, as: S.Type) {
        squares(region, image, S.self)
    }

    private func squares<S: KernelSample>(_ region: KernelRegion, _ image: KernelImage, _: S.Type) {
        let bands = image.bands, m = margin
        var fill = [S](repeating: S(clamping: 0), count: bands)
        var sums = [Double](repeating: 0, count: bands)
        var squareTop = region.top / size * size
        while squareTop < region.top + region.height {
            let squareBottom = min(squareTop + size, image.height)
            var squareLeft = region.left / size * size
            while squareLeft < region.left + region.width {
                let squareRight = min(squareLeft + size, image.width)
                for b in 0..<bands { sums[b] = 0 }
                let first = (squareLeft - region.left + m) * bands, samples = (squareRight - squareLeft) * bands
                for y in squareTop..<squareBottom {
                    let row = region.inputRow(y - region.top, as: S.self) + first
                    if bands == 3 {
                        // The common case, unrolled: three running sums the compiler keeps in registers.
                        var r = 0.0, g = 0.0, b = 0.0
                        var i = 0
                        while i < samples {
                            r += Double(row[i].floatValue)
                            g += Double(row[i + 1].floatValue)
                            b += Double(row[i + 2].floatValue)
                            i += 3
                        }
                        sums[0] += r
                        sums[1] += g
                        sums[2] += b
                    } else {
                        for i in 0..<samples { sums[i % bands] += Double(row[i].floatValue) }
                    }
                }
                let count = Double((squareBottom - squareTop) * (squareRight - squareLeft))
                for b in 0..<bands { fill[b] = S(clamping: Float(sums[b] / count)) }
                for y in max(squareTop, region.top)..<min(squareBottom, region.top + region.height) {
                    let row = region.outputRow(y - region.top, as: S.self)
                    for x in max(squareLeft, region.left)..<min(squareRight, region.left + region.width) {
                        let o = (x - region.left) * bands
                        for b in 0..<bands { row[o + b] = fill[b] }
                    }
                }
                squareLeft += size
            }
            squareTop += size
        }
    }
}
