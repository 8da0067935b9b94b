import Foundation
import Synchronization

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
    struct Taps: Sendable {
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

    /// Taps per (input, output) size, made once: a batch of photos of one size shares them.
    private static let made = Mutex<[Int: Taps]>([:])

    static func cachedTaps(from input: Int, to output: Int) -> Taps {
        let key = input << 32 | output
        if let found = made.withLock({ $0[key] }) { return found }
        let fresh = taps(from: input, to: output)
        made.withLock { cache in
            // A run of many sizes must not grow the cache without end.
            if cache.count > 4096 { cache.removeAll() }
            cache[key] = fresh
        }
        return fresh
    }

    private static func vertical(_ image: PixelImage, to height: Int) -> PixelImage {
        let taps = cachedTaps(from: image.height, to: height)
        let stride = image.width * image.bands
        var out = [UInt8](repeating: 0, count: stride * height)
        var sums = [Int32](repeating: 0, count: stride)
        let half: Int32 = 1 << (fractionBits - 1)
        image.pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                sums.withUnsafeMutableBufferPointer { sums in
                    taps.weights.withUnsafeBufferPointer { weights in
                        let source = source.baseAddress!, target = target.baseAddress!, sums = sums.baseAddress!
                        for y in 0..<height {
                            for i in 0..<stride { sums[i] = half }
                            let first = Int(taps.first[y])
                            for k in 0..<taps.count {
                                let w = weights[y &* taps.count &+ k]
                                if w == 0 { continue }
                                let row = source + min(max(first &+ k, 0), image.height &- 1) &* stride
                                for i in 0..<stride { sums[i] &+= w &* Int32(row[i]) }
                            }
                            let line = target + y &* stride
                            for i in 0..<stride { line[i] = UInt8(clamping: sums[i] >> fractionBits) }
                        }
                    }
                }
            }
        }
        return PixelImage(width: image.width, height: height, bands: image.bands, pixels: out)
    }

    private static func horizontal(_ image: PixelImage, to width: Int) -> PixelImage {
        let taps = cachedTaps(from: image.width, to: width)
        let bands = image.bands
        // Each tap's input column, clamped at the edges once rather than per pixel.
        var columns = [Int](repeating: 0, count: width * taps.count)
        for x in 0..<width {
            for k in 0..<taps.count { columns[x * taps.count + k] = min(max(Int(taps.first[x]) + k, 0), image.width - 1) * bands }
        }
        let interior = (0..<width).map { x in Int(taps.first[x]) >= 0 && Int(taps.first[x]) + taps.count <= image.width }
        var out = [UInt8](repeating: 0, count: width * bands * image.height)
        let half: Int32 = 1 << (fractionBits - 1)
        image.pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                taps.weights.withUnsafeBufferPointer { weights in
                    columns.withUnsafeBufferPointer { columns in
                        let source = source.baseAddress!, target = target.baseAddress!
                        let weights = weights.baseAddress!, columns = columns.baseAddress!
                        let count = taps.count
                        for y in 0..<image.height {
                            let row = source + y &* image.width &* bands
                            var o = target + y &* width &* bands
                            if bands == 3 {
                                for x in 0..<width {
                                    var r = half, g = half, b = half
                                    let w = weights + x &* count, c = columns + x &* count
                                    if interior[x] {
                                        // Away from the edges the taps are consecutive pixels.
                                        var p = row + c[0]
                                        for k in 0..<count {
                                            r &+= w[k] &* Int32(p[0])
                                            g &+= w[k] &* Int32(p[1])
                                            b &+= w[k] &* Int32(p[2])
                                            p += 3
                                        }
                                    } else {
                                        for k in 0..<count {
                                            let p = row + c[k]
                                            r &+= w[k] &* Int32(p[0])
                                            g &+= w[k] &* Int32(p[1])
                                            b &+= w[k] &* Int32(p[2])
                                        }
                                    }
                                    o[0] = UInt8(clamping: r >> fractionBits)
                                    o[1] = UInt8(clamping: g >> fractionBits)
                                    o[2] = UInt8(clamping: b >> fractionBits)
                                    o += 3
                                }
                            } else {
                                for x in 0..<width {
                                    var v = half
                                    let w = weights + x &* count, c = columns + x &* count
                                    for k in 0..<count { v &+= w[k] &* Int32(row[c[k]]) }
                                    o[0] = UInt8(clamping: v >> fractionBits)
                                    o += 1
                                }
                            }
                        }
                    }
                }
            }
        }
        return PixelImage(width: width, height: image.height, bands: bands, pixels: out)
    }
}
