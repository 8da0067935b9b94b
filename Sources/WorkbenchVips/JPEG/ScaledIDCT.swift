import Foundation

/// Blocks of kept coefficients to samples, and samples to the output grid.
///
/// A block's lowest N×N frequencies, scaled by N/8, are the N-point DCT of the block shrunk by
/// 8/N; JPEG's coefficients are orthonormal, so an N×N inverse DCT gives
/// ¼ Σ Σ a(u) a(v) F(u,v) cos((2x+1)uπ/2N) cos((2y+1)vπ/2N) with a(0) = 1/√2, a(k) = 1: at N = 1
/// that is F(0,0)/8, libjpeg's 1×1, and at N = 8 JPEG's own inverse DCT.
enum ScaledIDCT {
    /// Where natural position (row × 8 + column) sits in zigzag order.
    private static let zigzagOf: [Int] = {
        var inverse = [Int](repeating: 0, count: 64)
        for (k, natural) in JPEGZigzag.natural.enumerated() { inverse[natural] = k }
        return inverse
    }()

    /// Per N: basis[x × N + u] = ½ a(u) cos((2x+1)uπ/2N).
    private static let bases: [Int: [Double]] = Dictionary(uniqueKeysWithValues: [1, 2, 4, 8].map { n in
        (n, (0..<(n * n)).map { index -> Double in
            let (x, u) = (index / n, index % n)
            return 0.5 * (u == 0 ? 1 / 2.0.squareRoot() : 1) * cos(Double(2 * x + 1) * Double(u) * Double.pi / Double(2 * n))
        })
    })

    /// The component's samples over the blocks that hold image, row by row, and their count across and down.
    static func samples(of component: ProgressiveFrame.Component) -> (samples: [UInt8], wide: Int, high: Int) {
        let n = component.kept
        let wide = component.blocksWide * n, high = component.blocksHigh * n
        var samples = [UInt8](repeating: 0, count: wide * high)
        guard let quant = component.quant, let basis = bases[n] else { return (samples, wide, high) }
        // The dequantisation factor of each kept position.
        let factors = (0..<(n * n)).map { Double(quant[zigzagOf[($0 / n) * 8 + $0 % n]]) }
        var block = [Double](repeating: 0, count: n * n), rows = block
        let values = component.store.values
        samples.withUnsafeMutableBufferPointer { samples in
        basis.withUnsafeBufferPointer { basis in
        factors.withUnsafeBufferPointer { factors in
        block.withUnsafeMutableBufferPointer { block in
        rows.withUnsafeMutableBufferPointer { rows in
            for by in 0..<component.blocksHigh {
                for bx in 0..<component.blocksWide {
                    let first = (by * component.stride + bx) * n * n
                    let origin = by * n * wide + bx * n
                    if n == 1 {
                        // libjpeg's 1×1: (F·q + 4) >> 3, centred on 128.
                        samples[origin] = UInt8(clamping: (Int(values[first]) * quant[0] + 4) >> 3 + 128)
                        continue
                    }
                    var flat = true
                    for index in 1..<(n * n) where values[first + index] != 0 { flat = false; break }
                    if flat {
                        // Only the DC: every sample is the block's mean.
                        let mean = UInt8(clamping: Int((Double(values[first]) * factors[0] / 8 + 128.5).rounded(.down)))
                        for y in 0..<n { for x in 0..<n { samples[origin + y * wide + x] = mean } }
                        continue
                    }
                    for index in 0..<(n * n) { block[index] = Double(values[first + index]) * factors[index] }
                    // Columns first: rows[y × n + u] = Σ_v basis(y, v) F(v, u).
                    for y in 0..<n {
                        for u in 0..<n {
                            var sum = 0.0
                            for v in 0..<n { sum += basis[y * n + v] * block[v * n + u] }
                            rows[y * n + u] = sum
                        }
                    }
                    for y in 0..<n {
                        for x in 0..<n {
                            var sum = 128.5
                            for u in 0..<n { sum += basis[x * n + u] * rows[y * n + u] }
                            samples[origin + y * wide + x] = UInt8(clamping: Int(sum.rounded(.down)))
                        }
                    }
                }
            }
        }
        }
        }
        }
        }
        return (samples, wide, high)
    }

    /// Samples that each span `by` output pixels brought onto the output grid, interpolated at
    /// the output pixels' centres as libjpeg's fancy upsampling does (weights ¾ and ¼ for 2×),
    /// and cut to `to`.
    static func resample(_ samples: [UInt8], wide: Int, high: Int, by factor: (x: Int, y: Int), to size: (width: Int, height: Int)) -> [UInt8] {
        let xs = (0..<size.width).map { taps(centre: $0, factor: factor.x, count: wide) }
        var plane = [UInt8](repeating: 0, count: size.width * size.height)
        for y in 0..<size.height {
            let (y0, y1, wy) = taps(centre: y, factor: factor.y, count: high)
            let top = y0 * wide, bottom = y1 * wide
            for x in 0..<size.width {
                let (x0, x1, wx) = xs[x]
                let upper = Int(samples[top + x0]) * (8 - wx) + Int(samples[top + x1]) * wx
                let lower = Int(samples[bottom + x0]) * (8 - wx) + Int(samples[bottom + x1]) * wx
                plane[y * size.width + x] = UInt8(clamping: (upper * (8 - wy) + lower * wy + 32) >> 6)
            }
        }
        return plane
    }

    /// The two samples either side of output pixel `centre`'s centre, on a grid `factor` times
    /// coarser, and the far one's weight in 1/8ths (clamped at the edges).
    private static func taps(centre: Int, factor: Int, count: Int) -> (Int, Int, Int) {
        let position = (16 * centre + 8) / factor - 8 // in 1/16ths of a sample
        let near = max(0, min(count - 1, position >> 4))
        let weight = position < 0 ? 0 : ((position & 15) + 1) / 2
        return (near, min(near + 1, count - 1), weight)
    }
}
