import Foundation

/// Darkens towards the corners: every colour band times `1 − strength · s`, where `s` rises
/// smoothly from 0 at `radius` to 1 at `radius + softness` (distances from the centre, 1 = a
/// corner).
public struct VignetteMap: PixelMap {
    public let strength: Float, radius: Float, softness: Float
    public init(strength: Double, radius: Double, softness: Double) {
        self.strength = Float(strength)
        self.radius = Float(radius)
        self.softness = Float(max(softness, 1e-6))
    }
    public var name: String { "vignette" }

    /// The factor at pixel (x, y): what the libvips engine computes too, from `xyz`. Inside the
    /// radius and beyond the soft edge it is constant, known from the squared distance alone.
    @inline(__always) public func factor(x: Int, y: Int, size: (width: Int, height: Int)) -> Float {
        let cx = Float(size.width) / 2, cy = Float(size.height) / 2
        let dx = Float(x) + 0.5 - cx, dy = Float(y) + 0.5 - cy
        let squared = (dx * dx + dy * dy) / (cx * cx + cy * cy)
        if squared <= radius * radius { return 1 }
        let outer = radius + softness
        if squared >= outer * outer { return 1 - strength }
        let t = (squared.squareRoot() - radius) / softness
        return 1 - strength * t * t * (3 - 2 * t)
    }

    public func map(_ colour: SIMD4<Float>, x: Int, y: Int, size: (width: Int, height: Int)) -> SIMD4<Float> {
        colour * factor(x: x, y: y, size: size)
    }
}

/// Film grain: the same noise added to every colour band of a pixel, up to ±`amount` / 2 of
/// full scale (a triangular distribution, most values small). The noise at a pixel depends on
/// its position and `seed` only, so a rerun, any tiling and any thread count give the same image.
public struct GrainMap: PixelMap {
    public let amount: Float, seed: UInt64
    public init(amount: Double, seed: Int) {
        self.amount = Float(amount)
        self.seed = UInt64(bitPattern: Int64(seed))
    }
    public var name: String { "grain" }

    /// Noise in −1…1 at (x, y).
    @inline(__always) public func noise(x: Int, y: Int) -> Float {
        // SplitMix64's finaliser over the position and seed.
        var z = UInt64(truncatingIfNeeded: x) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(truncatingIfNeeded: y) &* 0xC2B2_AE3D_27D4_EB4F
            ^ seed &* 0x1656_67B1_9E37_79F9
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        let a = Float(z & 0xFFFF_FFFF) / 4_294_967_296, b = Float(z >> 32) / 4_294_967_296
        return a + b - 1
    }

    public func map(_ colour: SIMD4<Float>, x: Int, y: Int, size: (width: Int, height: Int)) -> SIMD4<Float> {
        colour + SIMD4(repeating: amount / 2 * noise(x: x, y: y))
    }
}
