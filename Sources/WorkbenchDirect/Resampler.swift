import Foundation
import Synchronization

/// Lanczos-3 reduction of an 8-bit image, vertical pass then horizontal, as libvips' `reduce`
/// does for its default kernel: each output sample a weighted sum of the input samples within
/// three output pixels of its centre, weights normalised and held as 12-bit fixed point, edges
/// repeated, every pass rounded to 8 bits. The weights are made here; the passes run in C
/// (`CResample`), with AVX2 where the processor has it.
public enum Resampler {
    /// `image` resized to `width` × `height` (each no larger than the input's).
    public static func reduce(_ image: PixelImage, width: Int, height: Int) -> PixelImage {
        reduce(image, width: width, height: height, shrinkX: Double(image.width) / Double(width),
               shrinkY: Double(image.height) / Double(height))
    }

    /// `image` resized to `width` × `height` where each output sample spans `shrinkX` ×
    /// `shrinkY` input samples: a chroma plane takes its luma's ratio, which its own rounded-up
    /// size only approximates.
    /// `shiftX`, `shiftY` move every window's centre back by that many input samples: a chroma
    /// plane follows its luma's centres where libvips shares a rounded size out at both ends.
    public static func reduce(_ image: PixelImage, width: Int, height: Int, shrinkX: Double, shrinkY: Double,
                              shiftX: Double = 0, shiftY: Double = 0) -> PixelImage {
        var result = image
        if height != image.height || shrinkY != 1 { result = vertical(result, to: height, shrink: shrinkY, shift: shiftY) }
        if width != image.width || shrinkX != 1 { result = horizontal(result, to: width, shrink: shrinkX, shift: shiftX) }
        return result
    }

    /// Weights in 1/4096ths: what one output sample takes from which inputs.
    /// The windows the passes apply, in 12-bit fixed point.
    typealias Taps = ReducePasses.Window

    static let fractionBits: Int32 = 12

    static func taps(from input: Int, to output: Int, shrink: Double? = nil, shift: Double = 0) -> Taps {
        var taps = Taps()
        forEachWindow(from: input, to: output, shrink: shrink ?? Double(input) / Double(output), shift: shift) { first, weights in
            taps.count = weights.count
            taps.first.append(Int32(first))
            taps.inputs.append(contentsOf: (0..<weights.count).map { Int32(min(max(first + $0, 0), input - 1)) })
            taps.weights.append(contentsOf: fixedPoint(weights))
        }
        return taps
    }

    /// A window's weights (summing to 1) in 1/4096ths, rounded, and the rounding's remainder
    /// given to the largest weight, so flat areas stay exactly flat.
    static func fixedPoint<Weights: Collection>(_ weights: Weights) -> [Int16] where Weights.Element: BinaryFloatingPoint {
        let one = Double(1 << fractionBits)
        var fixed = weights.map { Int32((Double($0) * one).rounded()) }
        let remainder = Int32(one) - fixed.reduce(0, +)
        if remainder != 0, let largest = fixed.indices.max(by: { fixed[$0] < fixed[$1] }) { fixed[largest] += remainder }
        return fixed.map { Int16(clamping: $0) }
    }

    /// Each output sample's Lanczos-3 window over `input` samples, in order: the first input it
    /// reads (before the edges, possibly negative) and its weights, normalised to sum to 1.
    static func forEachWindow(from input: Int, to output: Int, shrink: Double, shift: Double = 0, _ body: (Int, [Double]) -> Void) {
        let support = 3 * max(shrink, 1)
        let count = Int(ceil(2 * support)) + 1
        var row = [Double](repeating: 0, count: count)
        for o in 0..<output {
            let centre = (Double(o) + 0.5) * shrink - 0.5 - shift
            let first = Int(floor(centre - support)) + 1
            var sum = 0.0
            for k in 0..<count {
                let w = lanczos3((Double(first + k) - centre) / max(shrink, 1))
                row[k] = w
                sum += w
            }
            body(first, row.map { $0 / sum })
        }
    }

    static func lanczos3(_ x: Double) -> Double {
        if x == 0 { return 1 }
        guard abs(x) < 3 else { return 0 }
        let px = Double.pi * x
        return 3 * sin(px) * sin(px / 3) / (px * px)
    }

    private struct TapsKey: Hashable {
        let input: Int, output: Int, shrink: Double, shift: Double
    }

    /// Taps per (input, output, ratio), made once: a batch of photos of one size shares them.
    private static let made = MadeOnce<TapsKey, Taps>()

    static func cachedTaps(from input: Int, to output: Int, shrink: Double, shift: Double = 0) -> Taps {
        made.value(for: TapsKey(input: input, output: output, shrink: shrink, shift: shift)) {
            taps(from: input, to: output, shrink: shrink, shift: shift)
        }
    }

    private static func vertical(_ image: PixelImage, to height: Int, shrink: Double, shift: Double) -> PixelImage {
        let taps = cachedTaps(from: image.height, to: height, shrink: shrink, shift: shift)
        let stride = image.width * image.bands
        // Every byte is written by the pass: no zeroing first.
        let out = [UInt8](unsafeUninitializedCapacity: stride * height) { target, initialized in
            image.pixels.withUnsafeBufferPointer { source in
                guard let input = source.baseAddress, let output = target.baseAddress else { return }
                ReducePasses.rows(input, stride: stride, into: output, height: height, taps: taps)
            }
            initialized = target.count
        }
        return PixelImage(width: image.width, height: height, bands: image.bands, pixels: out)
    }

    private static func horizontal(_ image: PixelImage, to width: Int, shrink: Double, shift: Double) -> PixelImage {
        let taps = cachedTaps(from: image.width, to: width, shrink: shrink, shift: shift)
        let out = [UInt8](unsafeUninitializedCapacity: width * image.bands * image.height) { target, initialized in
            image.pixels.withUnsafeBufferPointer { source in
                guard let input = source.baseAddress, let output = target.baseAddress else { return }
                ReducePasses.columns(input, width: image.width, height: image.height, bands: image.bands, into: output, width: width, taps: taps)
            }
            initialized = target.count
        }
        return PixelImage(width: width, height: image.height, bands: image.bands, pixels: out)
    }
}

/// Values made once per key and shared by every later caller (a batch of photos of one size
/// shares its resampling windows); emptied past 4,096 keys, so a run of many sizes does not
/// grow it without end.
final class MadeOnce<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let values = Mutex<[Key: Value]>([:])

    func value(for key: Key, make: () -> Value) -> Value {
        if let found = values.withLock({ $0[key] }) { return found }
        let fresh = make()
        values.withLock { cache in
            if cache.count > 4096 { cache.removeAll() }
            cache[key] = fresh
        }
        return fresh
    }
}
