import Foundation

/// What a kernel computes in linear light from linear RGB (0…1): a colour, or a grey in lane 0.
public protocol LinearLightMap: Sendable {
    var name: String { get }
    /// 3: colour out; 1: grey out.
    var outputColourBands: Int { get }
    func map(_ linear: SIMD3<Float>) -> SIMD3<Float>
}

/// Luminance in linear light with libvips' weights (0.2 R + 0.7 G + 0.1 B), as its
/// `colourspace` to b-w computes it, so both engines give the same grey.
public struct GreyMap: LinearLightMap {
    public init() {}
    public var name: String { "grayscale" }
    public var outputColourBands: Int { 1 }
    public func map(_ c: SIMD3<Float>) -> SIMD3<Float> {
        let y = (SIMD3<Float>(0.2, 0.7, 0.1) * c).sum()
        return SIMD3(repeating: y)
    }
}

/// Chroma scaled by `amount` in CIE Lab (D65), hue and lightness kept: what libvips computes
/// when the image goes to LCh, C is scaled and it comes back. In double precision: at 16 bits,
/// single precision through the cube roots alone moves samples by 2.
public struct SaturationMap: LinearLightMap {
    public let amount: Double
    public init(amount: Double) { self.amount = amount }
    public var name: String { "saturation" }
    public var outputColourBands: Int { 3 }

    // libvips' scRGB → XYZ matrix (XYZ on 0…100), its inverse and the D65 white.
    private static let toXYZ = (SIMD3<Double>(41.24, 35.76, 18.056), SIMD3<Double>(21.26, 71.52, 7.22), SIMD3<Double>(1.93, 11.92, 95.05))
    private static let fromXYZ = (SIMD3<Double>(3.2406, -1.5372, -0.4986) / 100, SIMD3<Double>(-0.9689, 1.8758, 0.0415) / 100,
                                  SIMD3<Double>(0.0557, -0.2040, 1.0570) / 100)
    private static let white = SIMD3<Double>(95.047, 100, 108.883)

    /// Lab's f(t) (a cube root above 0.008856) by a table with linear interpolation, as libvips
    /// computes it (100 000 steps on 0…1); exact beyond the table.
    @inline(__always) private static func f(_ t: Double) -> Double {
        let position = t * Double(steps)
        guard position >= 0, position < Double(steps) else { return t > 0.008856 ? cbrt(t) : 7.787 * t + 16 / 116 }
        let i = Int(position)
        return Self.cubeRoots.withUnsafeBufferPointer { table in
            let low = Double(table[i])
            return low + (Double(table[i + 1]) - low) * (position - Double(i))
        }
    }

    private static let steps = 100_000
    private static let cubeRoots: [Float] = (0...steps).map { i in
        let t = Double(i) / Double(steps)
        return Float(t > 0.008856 ? cbrt(t) : 7.787 * t + 16 / 116)
    }
    @inline(__always) private static func inverse(_ t: Double) -> Double { t > 0.206893 ? t * t * t : (t - 16 / 116) / 7.787 }

    public func map(_ colour: SIMD3<Float>) -> SIMD3<Float> {
        let c = SIMD3<Double>(Double(colour[0]), Double(colour[1]), Double(colour[2]))
        let xyz = SIMD3((Self.toXYZ.0 * c).sum(), (Self.toXYZ.1 * c).sum(), (Self.toXYZ.2 * c).sum()) / Self.white
        let fx = Self.f(xyz[0]), fy = Self.f(xyz[1]), fz = Self.f(xyz[2])
        // Lab's a = 500 (fx − fy), b = 200 (fy − fz); scaling both scales chroma and keeps hue.
        let gx = fy + (fx - fy) * amount, gz = fy - (fy - fz) * amount
        let back = SIMD3(Self.inverse(gx), Self.inverse(fy), Self.inverse(gz)) * Self.white
        return SIMD3(Float((Self.fromXYZ.0 * back).sum()), Float((Self.fromXYZ.1 * back).sum()), Float((Self.fromXYZ.2 * back).sum()))
    }
}
