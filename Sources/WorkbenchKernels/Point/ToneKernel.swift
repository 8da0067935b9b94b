/// A tone curve applied to every colour band alike (alpha is copied): the shape of `invert`,
/// `levels`, `curves`, `posterize`, `solarize`, `brightness`, `contrast` and `gamma`.
///
/// The curve maps 0…1 (black…white) to 0…1; results outside are clipped in integer formats.
/// 8- and 16-bit images go through a table of every possible sample, computed once when the
/// kernel is made; float images evaluate the curve per sample.
public struct ToneKernel: Kernel {
    public let name: String
    public let curve: @Sendable (Double) -> Double
    private let table8: [UInt8]
    private let table16: [UInt16]
    /// Two 8-bit samples at once (little-endian pairs): half the lookups of `table8`.
    private let pairs8: [UInt16]

    public init(name: String, curve: @escaping @Sendable (Double) -> Double) {
        self.name = name
        self.curve = curve
        table8 = (0...255).map { UInt8(clamping: Float(curve(Double($0) / 255) * 255)) }
        table16 = (0...65535).map { UInt16(clamping: Float(curve(Double($0) / 65535) * 65535)) }
        let table8 = table8
        pairs8 = (0...65535).map { UInt16(table8[$0 & 0xFF]) | UInt16(table8[$0 >> 8]) << 8 }
    }

    public func process(_ region: KernelRegion, image: KernelImage, scratch: AnyObject?) throws(KernelError) {
        switch image.format {
        case .uint8 where !image.hasAlpha: pairs8.withUnsafeBufferPointer { lookUpPairs(region, image, $0) }
        case .uint8: table8.withUnsafeBufferPointer { lookUp(region, image, UInt8.self, $0) }
        case .uint16: table16.withUnsafeBufferPointer { lookUp(region, image, UInt16.self, $0) }
        case .float: evaluate(region, image)
        }
    }

    /// Every sample through the table; alpha copied.
    private func lookUp<S: FixedWidthInteger>(_ region: KernelRegion, _ image: KernelImage, _: S.Type,
                                              _ table: UnsafeBufferPointer<S>) {
        let bands = image.bands, colour = image.colourBands
        for y in 0..<region.height {
            let input = region.inputRow(y, as: S.self), output = region.outputRow(y, as: S.self)
            if !image.hasAlpha {
                for i in 0..<(region.width * bands) { output[i] = table[Int(input[i])] }
                continue
            }
            var i = 0
            for _ in 0..<region.width {
                for b in 0..<colour { output[i + b] = table[Int(input[i + b])] }
                output[i + colour] = input[i + colour]
                i += bands
            }
        }
    }

    /// 8-byte words through the pair table, four lookups each; the row's tail byte by byte.
    private func lookUpPairs(_ region: KernelRegion, _ image: KernelImage, _ pairs: UnsafeBufferPointer<UInt16>) {
        let count = region.width * image.bands
        for y in 0..<region.height {
            let input = UnsafeRawPointer(region.inputRow(y, as: UInt8.self))
            let output = UnsafeMutableRawPointer(region.outputRow(y, as: UInt8.self))
            var i = 0
            while i + 8 <= count {
                let word = input.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                let mapped = UInt64(pairs[Int(truncatingIfNeeded: word & 0xFFFF)])
                    | UInt64(pairs[Int(truncatingIfNeeded: (word >> 16) & 0xFFFF)]) << 16
                    | UInt64(pairs[Int(truncatingIfNeeded: (word >> 32) & 0xFFFF)]) << 32
                    | UInt64(pairs[Int(truncatingIfNeeded: word >> 48)]) << 48
                output.storeBytes(of: mapped, toByteOffset: i, as: UInt64.self)
                i += 8
            }
            while i < count {
                let sample = input.load(fromByteOffset: i, as: UInt8.self)
                output.storeBytes(of: UInt8(truncatingIfNeeded: pairs[Int(sample)]), toByteOffset: i, as: UInt8.self)
                i += 1
            }
        }
    }

    private func evaluate(_ region: KernelRegion, _ image: KernelImage) {
        let bands = image.bands, colour = image.colourBands, max = Double(image.max)
        for y in 0..<region.height {
            let input = region.inputRow(y, as: Float.self), output = region.outputRow(y, as: Float.self)
            for x in 0..<region.width {
                let i = x * bands
                for b in 0..<bands {
                    output[i + b] = b < colour ? Float(curve(Double(input[i + b]) / max) * max) : input[i + b]
                }
            }
        }
    }
}
