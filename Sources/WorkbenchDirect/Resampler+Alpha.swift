import Glibc

extension Resampler {
    /// An 8-bit image whose last band is alpha (2 or 4 bands), reduced by `shrink` on each axis
    /// as libvips 8.14's thumbnail reduces one: premultiplied, box-shrunk by whole factors,
    /// Lanczos-3 in floats with libvips' own windows (`ReduceAxis`), unpremultiplied, truncated
    /// (`wb_reduce_alpha`). Returns the size and the pixels (`malloc`ed, for libvips to own);
    /// nil when out of memory or when an axis would grow.
    public static func reducePremultiplied(_ pixels: UnsafeRawPointer, width: Int, height: Int, bands: Int,
                                           shrink: (x: Double, y: Double)) -> (width: Int, height: Int, pixels: UnsafeMutableRawPointer)? {
        guard bands == 2 || bands == 4, shrink.x >= 1, shrink.y >= 1 else { return nil }
        let x = ReduceAxis.made(input: width, shrink: shrink.x), y = ReduceAxis.made(input: height, shrink: shrink.y)
        guard let out = malloc(max(1, x.output * y.output * bands)) else { return nil }
        guard ReducePasses.premultiplied(pixels.assumingMemoryBound(to: UInt8.self), width: width, height: height, bands: bands,
                                         into: out.assumingMemoryBound(to: UInt8.self), x: x.window, y: y.window) else {
            free(out)
            return nil
        }
        return (x.output, y.output, out)
    }
}

/// One axis of libvips 8.14's `reduceh`/`reducev` with its default Lanczos-3 and a gap of 2, as
/// `resize` calls them: the output `round(input / shrink)` samples; first a box shrink by the
/// whole factor `floor(input / output / 2)` (its last box filled out with the edge sample);
/// then each output sample a window of `2 × rint(3 × shrink) + 1` inputs, centred where libvips
/// centres it — its position rounded to 1/64 of a sample, the rounding of the output size
/// shared out at both ends — with weights normalised to 1. Checked against libvips' own weights
/// (an impulse through `reducev`) to 10⁻⁸.
struct ReduceAxis: Sendable {
    let output: Int
    /// The whole-factor box shrink, and the size it leaves (rounded up).
    let box: Int
    let boxed: Int
    /// Per output sample, `count` inputs (of the boxed samples, held at the edges) and weights.
    var inputs: [Int32] = []
    var weights: [Float] = []
    /// Per output sample, its window's first input before the edges are held (possibly negative).
    var firsts: [Int32] = []
    let count: Int
    /// The same windows in fixed point, for the integer passes (`madeFixedPoint`).
    private(set) var fixedPoint = Resampler.Taps()

    /// The window as the premultiplied pass takes it.
    var window: ReducePasses.FloatWindow { ReducePasses.FloatWindow(box: box, output: output, inputs: inputs, weights: weights, count: count) }

    private struct Key: Hashable, Sendable {
        let input: Int, shrink: Double
    }

    private static let cache = MadeOnce<Key, ReduceAxis>()

    /// The axis for this input size and factor, made once: a batch of product shots of one
    /// size shares it, instead of two sines per tap of every window again for each image.
    static func made(input: Int, shrink: Double) -> ReduceAxis {
        cache.value(for: Key(input: input, shrink: shrink)) { ReduceAxis(input: input, shrink: shrink) }
    }

    init(input: Int, shrink whole: Double) {
        output = max(1, Int((Double(input) / whole + 0.5).rounded(.down)))
        box = max(1, Int((Double(input) / Double(output) / 2).rounded(.down)))
        boxed = (input + box - 1) / box
        let shrink = whole / Double(box)
        // Samples the output invents (or drops) past the input's end, split between both ends.
        let extra = (Double(output) * whole - Double(input)) / Double(box)
        count = 2 * Int((3 * shrink).rounded(.toNearestOrEven)) + 1
        let offset = (1 + extra) / 2 - 1
        let before = (count + 1) / 2 - 1
        inputs.reserveCapacity(output * count)
        weights.reserveCapacity(output * count)
        var window = [Double](repeating: 0, count: count)
        for o in 0..<output {
            let position = (Double(o) + 0.5) * shrink - 0.5 - offset
            let whole = Int(position)
            let sixtyFourths = ((Int(position * 128) & 127) + 1) >> 1
            let centre = Double(sixtyFourths) / 64 + Double(count) / 2 - 1
            var sum = 0.0
            for i in 0..<count {
                window[i] = Resampler.lanczos3((Double(i) - centre) / shrink)
                sum += window[i]
            }
            firsts.append(Int32(whole - before))
            for i in 0..<count {
                inputs.append(Int32(min(max(whole + i - before, 0), boxed - 1)))
                weights.append(Float(window[i] / sum))
            }
        }
        fixedPoint = madeFixedPoint()
    }
}
