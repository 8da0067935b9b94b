import Foundation

/// The sRGB transfer curve, as libvips applies it when it converts between sRGB and linear light.
public enum SRGB {
    /// Encoded 0…1 to linear light 0…1.
    @inline(__always) public static func linear(_ v: Float) -> Float {
        v <= 0.04045 ? v / 12.92 : powf((v + 0.055) / 1.055, 2.4)
    }

    /// Linear light 0…1 to encoded 0…1 (clipped to 0…1 first).
    @inline(__always) public static func encoded(_ y: Float) -> Float {
        let c = min(max(y, 0), 1)
        return c <= 0.0031308 ? c * 12.92 : 1.055 * powf(c, 1 / 2.4) - 0.055
    }

    /// Linear light for every 8-bit and 16-bit sample.
    static let table8: [Float] = (0...255).map { linear(Float($0) / 255) }
    static let table16: [Float] = (0...65535).map { linear(Float($0) / 65535) }

    /// Encoded samples at evenly spaced linear values, rounded (one spare entry at the end), as
    /// libvips keeps them: encoding interpolates between entries, which is fast and gives
    /// libvips' own values.
    static let encoding8: [Float] = encodingTable(maximum: 255)
    static let encoding16: [Float] = encodingTable(maximum: 65535)

    private static func encodingTable(maximum: Int) -> [Float] {
        let entries = (0...maximum).map { (encoded(Float($0) / Float(maximum)) * Float(maximum)).rounded() }
        return entries + [entries[maximum]]
    }

    /// Linear light 0…1 to an encoded sample 0…maximum, through `table` (see `encoding8`).
    @inline(__always) static func encoded(_ y: Float, maximum: Float, table: UnsafeBufferPointer<Float>) -> Float {
        // Written so that NaN (a map's 0/0) lands on 0 rather than trapping in Int().
        let scaled = y * maximum
        let position = scaled > 0 ? min(scaled, maximum) : 0
        let i = Int(position)
        return table[i] + (table[i + 1] - table[i]) * (position - Float(i))
    }
}

/// What a kernel computes in linear light from linear RGB (0…1): a colour, or a grey in lane 0.
public protocol LinearLightMap: Sendable {
    var name: String { get }
    /// 3: colour out; 1: grey out.
    var outputColourBands: Int { get }
    func map(_ linear: SIMD3<Float>) -> SIMD3<Float>
}

/// Runs a `LinearLightMap` on sRGB images: samples are decoded to linear light (by table for
/// 8- and 16-bit) and the result encoded back; alpha is copied. The shape of `grayscale` and
/// `saturation`, which libvips also computes in linear light.
public struct LinearLightKernel<Map: LinearLightMap>: Kernel {
    public let map: Map
    public init(_ map: Map) { self.map = map }

    public var name: String { map.name }
    public var inputColourBands: Int { 3 }
    public var outputColourBands: Int { map.outputColourBands }

    public func process(_ region: KernelRegion, image: KernelImage, scratch: AnyObject?) throws(KernelError) {
        switch image.format {
        case .uint8:
            SRGB.table8.withUnsafeBufferPointer { decoding in
                SRGB.encoding8.withUnsafeBufferPointer { run(region, image, UInt8.self, decoding, $0) }
            }
        case .uint16:
            SRGB.table16.withUnsafeBufferPointer { decoding in
                SRGB.encoding16.withUnsafeBufferPointer { run(region, image, UInt16.self, decoding, $0) }
            }
        case .float: run(region, image, Float.self, nil, nil)
        }
    }

    private func run<S: KernelSample>(_ region: KernelRegion, _ image: KernelImage, _: S.Type, _ table: UnsafeBufferPointer<Float>?,
                                      _ encoding: UnsafeBufferPointer<Float>?) {
        if let table, let encoding {
            tabled(region, image, S.self, table, encoding)
            return
        }
        let inBands = image.bands, outColour = map.outputColourBands
        let outBands = outColour + (image.hasAlpha ? 1 : 0)
        let full = image.max
        for y in 0..<region.height {
            let input = region.inputRow(y, as: S.self), output = region.outputRow(y, as: S.self)
            for x in 0..<region.width {
                let i = x * inBands, o = x * outBands
                let colour = SIMD3(input[i].floatValue, input[i + 1].floatValue, input[i + 2].floatValue) / full
                let result = map.map(SIMD3(SRGB.linear(colour[0]), SRGB.linear(colour[1]), SRGB.linear(colour[2])))
                for b in 0..<outColour { output[o + b] = S(clamping: SRGB.encoded(result[b]) * full) }
                if image.hasAlpha { output[o + outColour] = input[i + 3] }
            }
        }
    }

    /// One 8-bit colour through the map (colour out), as `tabled` computes it.
    func colour8(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> (UInt8, UInt8, UInt8) {
        SRGB.table8.withUnsafeBufferPointer { table in
            SRGB.encoding8.withUnsafeBufferPointer { encoding in
                let result = map.map(SIMD3(table[Int(r)], table[Int(g)], table[Int(b)]))
                return (UInt8(clamping: SRGB.encoded(result[0], maximum: 255, table: encoding)),
                        UInt8(clamping: SRGB.encoded(result[1], maximum: 255, table: encoding)),
                        UInt8(clamping: SRGB.encoded(result[2], maximum: 255, table: encoding)))
            }
        }
    }

    /// 8- and 16-bit samples: decoded and encoded by table, with nothing optional in the loop.
    private func tabled<S: KernelSample>(_ region: KernelRegion, _ image: KernelImage, _: S.Type, _ table: UnsafeBufferPointer<Float>,
                                         _ encoding: UnsafeBufferPointer<Float>) {
        let inBands = image.bands, outColour = map.outputColourBands, alpha = image.hasAlpha
        let outBands = outColour + (alpha ? 1 : 0)
        let full = image.max
        for y in 0..<region.height {
            let input = region.inputRow(y, as: S.self), output = region.outputRow(y, as: S.self)
            var i = 0, o = 0
            for _ in 0..<region.width {
                let result = map.map(SIMD3(table[Int(input[i].floatValue)], table[Int(input[i + 1].floatValue)],
                                           table[Int(input[i + 2].floatValue)]))
                output[o] = S(clamping: SRGB.encoded(result[0], maximum: full, table: encoding))
                if outColour == 3 {
                    output[o + 1] = S(clamping: SRGB.encoded(result[1], maximum: full, table: encoding))
                    output[o + 2] = S(clamping: SRGB.encoded(result[2], maximum: full, table: encoding))
                }
                if alpha { output[o + outColour] = input[i + 3] }
                i += inBands
                o += outBands
            }
        }
    }
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
