import WorkbenchKit

/// A halftone screen: the image is cut into `size`×`size` cells (fixed to the image, so tiles
/// and threads agree); each cell's average becomes a round dot whose area is the cell's
/// darkness — past half, a round gap of paper whose area is its lightness, as dots merge on
/// press — drawn with a one-pixel soft edge. An area kernel: its margin lets every region
/// see the whole of each cell it touches.
struct Dots: SampleKernel {
    let size: Int
    let colour: Bool

    var name: String { "halftone.dots" }
    var margin: Int { size }

    func process<S: KernelSample>(_ region: KernelRegion, _ image: KernelImage, as: S.Type) {
        let bands = image.bands, inks = image.colourBands, white = image.max
        let firstCellX = Self.floorDiv(region.left, size), lastCellX = Self.floorDiv(region.left + region.width - 1, size)
        let firstCellY = Self.floorDiv(region.top, size), lastCellY = Self.floorDiv(region.top + region.height - 1, size)
        let half = Float(size) / 2
        var darkness = [Float](repeating: 0, count: inks)
        for cellY in firstCellY...lastCellY {
            for cellX in firstCellX...lastCellX {
                average(cellX, cellY, region, image, S.self, into: &darkness)
                // Dot (or gap) radius in pixels for each ink: area = darkness (or lightness) · cell area.
                let radii = darkness.map { (Float(size * size) * min($0, 1 - $0) / Float.pi).squareRoot() }
                let centreX = Float(cellX * size) + half, centreY = Float(cellY * size) + half
                let rows = max(cellY * size, region.top)..<min((cellY + 1) * size, region.top + region.height)
                let columns = max(cellX * size, region.left)..<min((cellX + 1) * size, region.left + region.width)
                for absoluteY in rows {
                    let output = region.outputRow(absoluteY - region.top, as: S.self)
                    let input = region.inputRow(absoluteY - region.top, as: S.self)
                    for absoluteX in columns {
                        let dx = Float(absoluteX) + 0.5 - centreX, dy = Float(absoluteY) + 0.5 - centreY
                        let distance = (dx * dx + dy * dy).squareRoot()
                        let o = (absoluteX - region.left) * bands
                        for b in 0..<inks {
                            let inside = min(max(radii[b] - distance + 0.5, 0), 1)
                            let ink = darkness[b] <= 0.5 ? inside : 1 - inside
                            output[o + b] = S(clamping: (1 - ink) * white)
                        }
                        if inks < bands { output[o + inks] = input[o + region.margin * bands + inks] }
                    }
                }
            }
        }
    }

    /// Each ink's darkness 0…1 over the cell (with `colour` off, one grey darkness for all).
    private func average<S: KernelSample>(_ cellX: Int, _ cellY: Int, _ region: KernelRegion, _ image: KernelImage, _: S.Type,
                                          into darkness: inout [Float]) {
        let bands = image.bands, inks = image.colourBands
        var sums = [Float](repeating: 0, count: inks)
        for absoluteY in (cellY * size)..<((cellY + 1) * size) {
            let row = region.inputRow(absoluteY - region.top, as: S.self)
            for absoluteX in (cellX * size)..<((cellX + 1) * size) {
                let i = (absoluteX - region.left + region.margin) * bands
                for b in 0..<inks { sums[b] += row[i + b].floatValue }
            }
        }
        let count = Float(size * size) * image.max
        if colour || inks < 3 {
            for b in 0..<inks { darkness[b] = 1 - sums[b] / count }
        } else {
            let grey = 1 - (0.2126 * sums[0] + 0.7152 * sums[1] + 0.0722 * sums[2]) / count
            for b in 0..<inks { darkness[b] = grey }
        }
    }

    static func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }
}
