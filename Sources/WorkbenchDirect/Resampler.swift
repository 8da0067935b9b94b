import Foundation

/// Lanczos-3 reduction of an 8-bit image, vertical pass then horizontal, as libvips' `reduce`
/// does for its default kernel: each output sample a weighted sum of the input samples within
/// three output pixels of its centre, weights normalised and held as 12-bit fixed point, edges
/// repeated, every pass rounded to 8 bits.
public enum Resampler {
    /// `image` resized to `width` × `height` (each no larger than the input's).
    public static func reduce(_ image: PixelImage, width: Int, height: Int) -> PixelImage {
        var result = image
        if height != image.height { result = vertical(result, to: height) }
        if width != image.width { result = horizontal(result, to: width) }
        return result
    }

    /// Weights in 1/4096ths: what one output sample takes from which inputs.
    struct Taps {
        /// Per output sample: the first input it reads.
        var first: [Int32] = []
        /// Per output sample, `count` weights.
        var weights: [Int32] = []
        var count = 0
    }

    static let fractionBits: Int32 = 12

    static func taps(from input: Int, to output: Int) -> Taps {
        let shrink = Double(input) / Double(output)
        let support = 3 * max(shrink, 1)
        var taps = Taps()
        taps.count = Int(ceil(2 * support)) + 1
        taps.first.reserveCapacity(output)
        taps.weights.reserveCapacity(output * taps.count)
        var row = [Double](repeating: 0, count: taps.count)
        let one = Double(1 << fractionBits)
        for o in 0..<output {
            let centre = (Double(o) + 0.5) * shrink - 0.5
            let first = Int(floor(centre - support)) + 1
            var sum = 0.0
            for k in 0..<taps.count {
                let w = lanczos3((Double(first + k) - centre) / max(shrink, 1))
                row[k] = w
                sum += w
            }
            // Normalised, rounded, and the rounding's remainder given to the largest weight, so
            // flat areas stay exactly flat.
            var fixed = row.map { Int32(($0 / sum * one).rounded()) }
            let remainder = Int32(one) - fixed.reduce(0, +)
            if remainder != 0, let largest = fixed.indices.max(by: { fixed[$0] < fixed[$1] }) { fixed[largest] += remainder }
            taps.first.append(Int32(first))
            taps.weights.append(contentsOf: fixed)
        }
        return taps
    }

    static func lanczos3(_ x: Double) -> Double {
        if x == 0 { return 1 }
        guard abs(x) < 3 else { return 0 }
        let px = Double.pi * x
        return 3 * sin(px) * sin(px / 3) / (px * px)
    }

    private static func vertical(_ image: PixelImage, to height: Int) -> PixelImage {
        let taps = taps(from: image.height, to: height)
        let stride = image.width * image.bands
        var out = [UInt8](repeating: 0, count: stride * height)
        let half: Int32 = 1 << (fractionBits - 1)
        image.pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                var sums = [Int32](repeating: 0, count: stride)
                for y in 0..<height {
                    for i in 0..<stride { sums[i] = half }
                    let first = Int(taps.first[y])
                    for k in 0..<taps.count {
                        let w = taps.weights[y * taps.count + k]
                        if w == 0 { continue }
                        let row = min(max(first + k, 0), image.height - 1) * stride
                        for i in 0..<stride { sums[i] &+= w &* Int32(source[row + i]) }
                    }
                    let base = y * stride
                    for i in 0..<stride { target[base + i] = UInt8(clamping: sums[i] >> fractionBits) }
                }
            }
        }
        return PixelImage(width: image.width, height: height, bands: image.bands, pixels: out)
    }

    private static func horizontal(_ image: PixelImage, to width: Int) -> PixelImage {
        let taps = taps(from: image.width, to: width)
        let bands = image.bands
        var out = [UInt8](repeating: 0, count: width * bands * image.height)
        let half: Int32 = 1 << (fractionBits - 1)
        image.pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                for y in 0..<image.height {
                    let row = y * image.width * bands
                    for x in 0..<width {
                        let first = Int(taps.first[x])
                        var sums = (half, half, half)
                        for k in 0..<taps.count {
                            let w = taps.weights[x * taps.count + k]
                            let at = row + min(max(first + k, 0), image.width - 1) * bands
                            sums.0 &+= w &* Int32(source[at])
                            if bands == 3 {
                                sums.1 &+= w &* Int32(source[at + 1])
                                sums.2 &+= w &* Int32(source[at + 2])
                            }
                        }
                        let o = (y * width + x) * bands
                        target[o] = UInt8(clamping: sums.0 >> fractionBits)
                        if bands == 3 {
                            target[o + 1] = UInt8(clamping: sums.1 >> fractionBits)
                            target[o + 2] = UInt8(clamping: sums.2 >> fractionBits)
                        }
                    }
                }
            }
        }
        return PixelImage(width: width, height: image.height, bands: bands, pixels: out)
    }
}
