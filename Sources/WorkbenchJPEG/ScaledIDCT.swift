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

    /// An inverse DCT: its output size a side, and which of the frequencies that size depends on
    /// it keeps — all of them (libjpeg's pixels) or, `lowPass`, only those below 4.
    ///
    /// Before a further reduction of at least 2× (a thumbnail decoded at twice its size), the
    /// frequencies from 4 up lie above the final image's Nyquist limit, which the reduction's
    /// filter takes out; leaving them out first changes the thumbnail by a fraction of a level
    /// and keeps 16 coefficients a block where libjpeg's 1/2 scale keeps 49 (64 for chroma).
    struct Shape: Hashable, Sendable {
        let points: Int
        let lowPass: Bool

        /// The frequencies kept a side.
        var frequencies: [Int] {
            let all = ScaledIDCT.frequencies[points] ?? []
            return lowPass ? all.filter { $0 < 4 } : all
        }

        static let all: [Shape] = [1, 2, 4, 8].flatMap { [Shape(points: $0, lowPass: false), Shape(points: $0, lowPass: true)] }
    }

    /// How many frequencies a side a block keeps for this inverse DCT.
    static func kept(for shape: Shape) -> Int { shape.frequencies.count }

    /// Per shape: weights[x × m + j] = ½ a(u) × the mean of cos((2s+1)uπ/16) over output x's span, u = its frequencies[j].
    private static let weights: [Shape: [Double]] = Dictionary(uniqueKeysWithValues: Shape.all.map { shape in
        let n = shape.points, used = shape.frequencies, span = 8 / n
        let table = (0..<n).flatMap { x in
            used.map { u -> Double in
                let mean = (x * span..<(x + 1) * span).reduce(0.0) { $0 + cos(Double(2 * $1 + 1) * Double(u) * Double.pi / 16) } / Double(span)
                return 0.5 * (u == 0 ? 1 / 2.0.squareRoot() : 1) * mean
            }
        }
        return (shape, table)
    })

    /// Where zigzag position k sits among a block's kept values for this inverse DCT, or -1.
    static func slots(for shape: Shape) -> [Int] {
        let used = shape.frequencies, m = used.count
        return JPEGZigzag.natural.map { natural in
            guard let row = used.firstIndex(of: natural / 8), let column = used.firstIndex(of: natural % 8) else { return -1 }
            return row * m + column
        }
    }

    /// `slots(for:)` for each shape, made once.
    static let slotsByShape: [Shape: [Int]] = Dictionary(uniqueKeysWithValues: Shape.all.map { ($0, slots(for: $0)) })

    /// Per shape, the zigzag positions kept, as a mask (DC left out).
    private static let keptAC: [Shape: UInt64] = Dictionary(uniqueKeysWithValues: Shape.all.map { shape in
        (shape, slots(for: shape).enumerated().reduce(UInt64(0)) { $1.offset > 0 && $1.element >= 0 ? $0 | 1 << UInt64($1.offset) : $0 })
    })

    /// Per shape: products[k × n² + y × n + x] = w(y, v) w(x, u) for zigzag position k at (v, u):
    /// what one unit of that coefficient adds to each sample (0 where k is not kept).
    private static let products: [Shape: [Float]] = Dictionary(uniqueKeysWithValues: Shape.all.map { shape in
        let n = shape.points, used = shape.frequencies, m = used.count, w = weights[shape] ?? []
        var table = [Float](repeating: 0, count: 64 * n * n)
        for (k, natural) in JPEGZigzag.natural.enumerated() {
            guard let v = used.firstIndex(of: natural / 8), let u = used.firstIndex(of: natural % 8) else { continue }
            for y in 0..<n { for x in 0..<n { table[k * n * n + y * n + x] = Float(w[y * m + v] * w[x * m + u]) } }
        }
        return (shape, table)
    })

    /// The component's samples over the blocks that hold image (padding blocks included), row by
    /// row, `blocksWide × n` a row; nil when the memory cannot be had. A block's nonzero mask says
    /// which coefficients to add in: most blocks hold a few, and a block with only its DC is one
    /// value, rounded as libjpeg rounds it.
    static func samples(of component: ProgressiveFrame.Component, store: CoefficientStore) throws(ProgressiveRefusal) -> PixelBuffer {
        let n = component.scale, m = component.kept
        let wide = component.blocksWide * n, high = component.blocksHigh * n
        guard let quant = component.quant, let products = products[component.shape], let kept = keptAC[component.shape] else {
            throw .damaged(.missingComponent, "component \(component.id) has no quantisation table")
        }
        guard let plane = PixelBuffer(count: wide * high) else {
            throw ProgressiveRefusal(.memory, .outOfMemory, "no memory for the samples of component \(component.id)")
        }
        // libjpeg limits a sample through a table indexed modulo 1024 (`range_limit`), which
        // clamps what lies within 384 of the range and wraps what lies further out: values that
        // far out (only damaged or hand-made files have them) are left to libjpeg. Where the sum
        // is computed here in floating point, libjpeg's integer transform can land a level or
        // two either side, so a margin keeps a sample near the edge from wrapping in libjpeg
        // alone (fuzz-jpeg-libvips found one at 638).
        var outOfRange = false
        var overflowsSIMD = false
        guard let slots = slotsByShape[component.shape] else { throw .unsupported(.scale, "an inverse DCT of \(n) points") }
        let dcQuant = quant[0]
        // Each zigzag position's dequantisation factor.
        let factors = (0..<64).map { Float(quant[$0]) }
        let samples = plane.bytes.baseAddress!, values = store.values, nonzero = store.nonzero
        products.withUnsafeBufferPointer { products in
        factors.withUnsafeBufferPointer { factors in
        slots.withUnsafeBufferPointer { slots in
            for by in 0..<component.blocksHigh {
                for bx in 0..<component.blocksWide {
                    let block = by &* component.stride &+ bx
                    let first = block &* m &* m
                    let origin = by &* n &* wide &+ bx &* n
                    let pending = nonzero[block] & kept
                    if pending == 0 {
                        // Only the DC: every sample is the block's mean, (F·q + 4) >> 3 as libjpeg rounds it.
                        let centred = (Int(values[first]) &* dcQuant &+ 4) &>> 3
                        if centred < -384 || centred > 511 { outOfRange = true }
                        let mean = UInt8(clamping: centred &+ 128)
                        if n == 1 {
                            samples[origin] = mean
                        } else {
                            for y in 0..<n { for x in 0..<n { samples[origin &+ y &* wide &+ x] = mean } }
                        }
                        continue
                    }
                    let dc = Float(values[first]) * factors[0] / 8 + 128.5
                    let base = products.baseAddress!
                    // The sums of a block in one vector: 4 samples at 1/4, 16 at 1/2.
                    switch n {
                    case 2:
                        let (sums, magnitude) = blockSums(SIMD4<Float>.self, dc: dc, pending, values + first, slots.baseAddress!, factors.baseAddress!, base)
                        Self.write(sums, n: 2, into: samples + origin, wide: wide, outOfRange: &outOfRange)
                        if magnitude > simdBudget { overflowsSIMD = true }
                    case 4:
                        let (sums, magnitude) = blockSums(SIMD16<Float>.self, dc: dc, pending, values + first, slots.baseAddress!, factors.baseAddress!, base)
                        Self.write(sums, n: 4, into: samples + origin, wide: wide, outOfRange: &outOfRange)
                        if magnitude > simdBudget { overflowsSIMD = true }
                    default:
                        let (sums, magnitude) = blockSums(SIMD64<Float>.self, dc: dc, pending, values + first, slots.baseAddress!, factors.baseAddress!, base)
                        Self.write(sums, n: 8, into: samples + origin, wide: wide, outOfRange: &outOfRange)
                        if magnitude > simdBudget { overflowsSIMD = true }
                    }
                }
            }
        }
        }
        }
        if outOfRange {
            throw .damaged(.outOfRange, "component \(component.id) has samples so far out of range that libjpeg wraps them")
        }
        if overflowsSIMD {
            throw .damaged(.coefficientRange, "component \(component.id) has coefficients so large that libjpeg-turbo's SIMD inverse DCT overflows its 16-bit arithmetic, and gives other pixels than its own C code (and this decoder)")
        }
        return plane
    }

    /// Levels kept clear of where libjpeg's range limit starts to wrap (640), for the sums made
    /// in floating point.
    static let wrapMargin = 8

    /// A block's samples before rounding: the DC's level plus, for each nonzero kept
    /// coefficient, its dequantised value times what one unit of it adds to each sample.
    @inline(always)
    private static func blockSums<V: SIMD>(_: V.Type, dc: Float, _ pending: UInt64, _ values: UnsafeMutablePointer<Int16>,
                                           _ slots: UnsafePointer<Int>, _ factors: UnsafePointer<Float>,
                                           _ products: UnsafePointer<Float>) -> (sums: V, magnitude: Float) where V.Scalar == Float {
        var sums = V(repeating: dc)
        // Σ |F·q| over the block, the DC's included (the caller's `dc` is that over 8, plus 128.5).
        var magnitude = abs(dc - 128.5) * 8
        var pending = pending
        while pending != 0 {
            let k = pending.trailingZeroBitCount
            pending &= pending - 1
            let coefficient = Float(values[slots[k]]) * factors[k]
            magnitude += abs(coefficient)
            sums += coefficient * UnsafeRawPointer(products + k * V.scalarCount).loadUnaligned(as: V.self)
        }
        return (sums, magnitude)
    }

    /// The most Σ |F·q| a block may hold for libjpeg-turbo's SIMD reduced and full inverse
    /// DCTs (what libvips uses) to give the pixels of its C code, which this decoder matches:
    /// they dequantise and carry the first pass in 16-bit lanes, which wrap or saturate on
    /// coefficients far larger than any 8-bit image's (|F·q| ≤ 1024 + q/2 each; a sharp edge
    /// sums to a few thousand: at most 2946 on the reference corpus). A block past it is left
    /// to libjpeg, whole file (fuzz-jpeg-libvips found one: 15 dB apart).
    static let simdBudget: Float = 4096

    /// Rounds a block's n×n sums down (as libjpeg's descaling does), notes any that libjpeg would
    /// wrap rather than clamp, and writes them clamped.
    @inline(always)
    private static func write<V: SIMD>(_ sums: V, n: Int, into samples: UnsafeMutablePointer<UInt8>, wide: Int,
                                       outOfRange: inout Bool) where V.Scalar == Float {
        for y in 0..<n {
            for x in 0..<n {
                // Rounding down is truncation for the values that count; a negative value only
                // matters as 0 or as one libjpeg would wrap.
                let sum = sums[y &* n &+ x]
                let sample = sum >= 0 ? Int(sum) : sum < -256 ? -257 : -1
                if sample < -256 || sample > 639 - wrapMargin { outOfRange = true }
                samples[y &* wide &+ x] = UInt8(clamping: sample)
            }
        }
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
