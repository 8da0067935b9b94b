import Foundation

/// Blocks of kept coefficients to samples, as libjpeg's scaled inverse DCTs make them.
///
/// libjpeg's reduced IDCTs (`jpeg_idct_4x4`, `_2x2`, `_1x1`) give each output sample the mean of
/// the 8×8 IDCT over the (8/n)×(8/n) pixels it stands for. Over such a span some frequencies
/// average to zero (4 over pairs; 2, 4 and 6 over fours), and those are the ones libjpeg skips:
/// an n-point output needs frequencies `frequencies[n]` of each axis, no more. So a block keeps
/// exactly those, and its samples are the mean of the full IDCT, computed directly:
/// out(x) = Σ_u ½ a(u) F(u) · mean over the span of cos((2s+1)uπ/16), a(0) = 1/√2, a(u) = 1.
enum ScaledIDCT {
    /// The frequencies (per axis) an n-point output depends on.
    static let frequencies: [Int: [Int]] = [1: [0], 2: [0, 1, 3, 5, 7], 4: [0, 1, 2, 3, 5, 6, 7], 8: Array(0..<8)]

    /// How many frequencies a side a block keeps for an n-point output.
    static func kept(for n: Int) -> Int { frequencies[n]?.count ?? 8 }

    /// Per n: weights[x × m + j] = ½ a(u) × the mean of cos((2s+1)uπ/16) over output x's span, u = frequencies[n][j].
    private static let weights: [Int: [Double]] = Dictionary(uniqueKeysWithValues: [1, 2, 4, 8].map { n in
        let used = frequencies[n] ?? [], span = 8 / n
        let table = (0..<n).flatMap { x in
            used.map { u -> Double in
                let mean = (x * span..<(x + 1) * span).reduce(0.0) { $0 + cos(Double(2 * $1 + 1) * Double(u) * Double.pi / 16) } / Double(span)
                return 0.5 * (u == 0 ? 1 / 2.0.squareRoot() : 1) * mean
            }
        }
        return (n, table)
    })

    /// Where zigzag position k sits among a block's kept values for an n-point output, or -1.
    static func slots(for n: Int) -> [Int] {
        let used = frequencies[n] ?? [], m = used.count
        return JPEGZigzag.natural.map { natural in
            guard let row = used.firstIndex(of: natural / 8), let column = used.firstIndex(of: natural % 8) else { return -1 }
            return row * m + column
        }
    }

    /// The component's samples over the blocks that hold image (padding blocks included), row by
    /// row, `blocksWide × n` a row; nil when the memory cannot be had.
    static func samples(of component: ProgressiveFrame.Component, store: CoefficientStore) -> PixelBuffer? {
        let n = component.scale, m = component.kept
        let wide = component.blocksWide * n, high = component.blocksHigh * n
        guard let plane = PixelBuffer(count: wide * high), let quant = component.quant, let weights = weights[n] else { return nil }
        // The dequantisation factor of each kept position.
        let used = frequencies[n] ?? []
        let factors = (0..<(m * m)).map { Double(quant[zigzagOf[used[$0 / m] * 8 + used[$0 % m]]]) }
        var block = [Double](repeating: 0, count: m * m), columns = [Double](repeating: 0, count: n * m)
        let samples = plane.bytes, values = store.values
        weights.withUnsafeBufferPointer { weights in
        factors.withUnsafeBufferPointer { factors in
        block.withUnsafeMutableBufferPointer { block in
        columns.withUnsafeMutableBufferPointer { columns in
            for by in 0..<component.blocksHigh {
                for bx in 0..<component.blocksWide {
                    let first = (by * component.stride + bx) * m * m
                    let origin = by * n * wide + bx * n
                    var flat = true
                    for index in 1..<(m * m) where values[first + index] != 0 { flat = false; break }
                    if flat {
                        // Only the DC: every sample is the block's mean, (F·q + 4) >> 3 as libjpeg rounds it.
                        let mean = UInt8(clamping: (Int(values[first]) * quant[0] + 4) >> 3 + 128)
                        for y in 0..<n { for x in 0..<n { samples[origin + y * wide + x] = mean } }
                        continue
                    }
                    for index in 0..<(m * m) { block[index] = Double(values[first + index]) * factors[index] }
                    // Down the columns first: columns[y × m + u] = Σ_v w(y, v) F(v, u).
                    for y in 0..<n {
                        for u in 0..<m {
                            var sum = 0.0
                            for v in 0..<m { sum += weights[y * m + v] * block[v * m + u] }
                            columns[y * m + u] = sum
                        }
                    }
                    for y in 0..<n {
                        for x in 0..<n {
                            var sum = 128.5
                            for u in 0..<m { sum += weights[x * m + u] * columns[y * m + u] }
                            samples[origin + y * wide + x] = UInt8(clamping: Int(sum.rounded(.down)))
                        }
                    }
                }
            }
        }
        }
        }
        }
        return plane
    }

    /// Where natural position (row × 8 + column) sits in zigzag order.
    private static let zigzagOf: [Int] = {
        var inverse = [Int](repeating: 0, count: 64)
        for (k, natural) in JPEGZigzag.natural.enumerated() { inverse[natural] = k }
        return inverse
    }()
}

/// JPEG's zigzag order: `natural[k]` is where (row × 8 + column) the k-th coefficient sits.
enum JPEGZigzag {
    static let natural: [Int] = [
        0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21,
        28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61,
        54, 47, 55, 62, 63,
    ]
}
