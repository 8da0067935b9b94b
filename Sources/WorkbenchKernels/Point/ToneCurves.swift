import Foundation

/// The tone curves behind the tone filters, on 0…1 (black…white). Parameters given on the
/// 0…255 scale mean the same on 16-bit and float images.
public enum ToneCurves {
    /// Black becomes white: `1 − v`.
    public static func invert() -> ToneKernel {
        ToneKernel(name: "invert") { 1 - $0 }
    }

    /// Photoshop's levels: input black and white points stretched to 0…1, a gamma on the
    /// mid-tones, then mapped to the output black and white points. All points on 0…255.
    public static func levels(inBlack: Double, inWhite: Double, gamma: Double, outBlack: Double, outWhite: Double) -> ToneKernel {
        let span = max(inWhite - inBlack, 1e-9), exponent = 1 / gamma
        return ToneKernel(name: "levels") { v in
            let t = min(max((v * 255 - inBlack) / span, 0), 1)
            return (outBlack + (outWhite - outBlack) * pow(t, exponent)) / 255
        }
    }

    /// A smooth curve through `points` (`[x, y]` on 0…255, sorted by x), see `MonotoneCurve`.
    public static func curves(_ points: [(x: Double, y: Double)]) -> ToneKernel {
        let curve = MonotoneCurve(points.map { ($0.x / 255, $0.y / 255) })
        return ToneKernel(name: "curves") { curve.value(at: $0) }
    }

    /// `levels` tones evenly spaced from black to white (2 gives pure black and white).
    public static func posterize(levels: Int) -> ToneKernel {
        let steps = Double(max(levels, 2) - 1)
        return ToneKernel(name: "posterize") { ($0 * steps).rounded(.toNearestOrAwayFromZero) / steps }
    }

    /// Values above `threshold` (0…255) are inverted, like a print flashed with light as it develops.
    public static func solarize(threshold: Double) -> ToneKernel {
        let t = threshold / 255
        return ToneKernel(name: "solarize") { $0 > t ? 1 - $0 : $0 }
    }

    /// Every value times `amount`.
    public static func brightness(_ amount: Double) -> ToneKernel {
        ToneKernel(name: "brightness") { $0 * amount }
    }

    /// The value's distance from mid-grey (128 of 255) times `amount`.
    public static func contrast(_ amount: Double) -> ToneKernel {
        ToneKernel(name: "contrast") { ($0 - midGrey) * amount + midGrey }
    }

    /// `v^(1/gamma)`: above 1 brightens the mid-tones, black and white stay.
    public static func gamma(_ gamma: Double) -> ToneKernel {
        let exponent = 1 / gamma
        return ToneKernel(name: "gamma") { pow(max($0, 0), exponent) }
    }

    /// Mid-grey as `contrast` pivots around it: 128 on the 0…255 scale.
    public static let midGrey = 128.0 / 255
}
