/// Squares of `size`×`size` pixels, each the mean of the pixels it covers (every band). The
/// grid starts at the image's top-left corner; squares cut by the right or bottom edge average
/// the pixels inside the image only.
public struct Pixelate: Kernel {
    public let size: Int
    public init(size: Int) { self.size = size }
    public var name: String { "pixelate" }
    // The square of any pixel lies within size − 1 pixels of it.
    public var margin: Int { size - 1 }

    public func process(_ region: KernelRegion, image: KernelImage, scratch: AnyObject?) throws(KernelError) {
        switch image.format {
        case .uint8: run(region, image, UInt8.self)
        case .uint16: run(region, image, UInt16.self)
        case .float: run(region, image, Float.self)
        }
    }

    private func run<S: KernelSample>(_ region: KernelRegion, _ image: KernelImage, _: S.Type) {
        let bands = image.bands, m = margin
        var means = [Float](repeating: 0, count: bands)
        var sums = [Double](repeating: 0, count: bands)
        var squareTop = region.top / size * size
        while squareTop < region.top + region.height {
            let squareBottom = min(squareTop + size, image.height)
            var squareLeft = region.left / size * size
            while squareLeft < region.left + region.width {
                let squareRight = min(squareLeft + size, image.width)
                for b in 0..<bands { sums[b] = 0 }
                for y in squareTop..<squareBottom {
                    let row = region.inputRow(y - region.top, as: S.self)
                    for x in squareLeft..<squareRight {
                        let i = (x - region.left + m) * bands
                        for b in 0..<bands { sums[b] += Double(row[i + b].floatValue) }
                    }
                }
                let count = Double((squareBottom - squareTop) * (squareRight - squareLeft))
                for b in 0..<bands { means[b] = Float(sums[b] / count) }
                for y in max(squareTop, region.top)..<min(squareBottom, region.top + region.height) {
                    let row = region.outputRow(y - region.top, as: S.self)
                    for x in max(squareLeft, region.left)..<min(squareRight, region.left + region.width) {
                        let o = (x - region.left) * bands
                        for b in 0..<bands { row[o + b] = S(clamping: means[b]) }
                    }
                }
                squareLeft += size
            }
            squareTop += size
        }
    }
}
