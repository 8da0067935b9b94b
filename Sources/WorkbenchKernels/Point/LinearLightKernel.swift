import Foundation

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
