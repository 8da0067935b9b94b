/// Remembers, for one thread, what a costly colour map made of recently seen 8-bit colours.
///
/// Why: `saturation` runs each pixel through CIE Lab and back (three cube roots, two matrices),
/// some 50 ns; a photo repeats its colours — neighbours are alike — so most pixels find their
/// colour here and cost two loads. Direct-mapped, 65 536 entries (512 KiB), exact: an entry holds
/// the whole colour it answers for, so a result is always the map's own.
final class ColourMemo {
    private static let empty: UInt32 = .max
    private var colours = [UInt32](repeating: ColourMemo.empty, count: 65_536)
    private var results = [UInt32](repeating: 0, count: 65_536)

    /// Runs `map` (8-bit RGB in, RGB out) on a region of an 8-bit image with 3 colour bands;
    /// alpha is copied.
    func run(_ region: KernelRegion, _ image: KernelImage, _ map: (UInt8, UInt8, UInt8) -> (UInt8, UInt8, UInt8)) {
        let bands = image.bands, alpha = image.hasAlpha
        colours.withUnsafeMutableBufferPointer { colours in
            results.withUnsafeMutableBufferPointer { results in
                for y in 0..<region.height {
                    let input = region.inputRow(y, as: UInt8.self), output = region.outputRow(y, as: UInt8.self)
                    var i = 0
                    for _ in 0..<region.width {
                        let colour = UInt32(input[i]) | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2]) << 16
                        let slot = Int((colour &* 0x9E37_79B1) >> 16)
                        if colours[slot] != colour {
                            let (r, g, b) = map(input[i], input[i + 1], input[i + 2])
                            colours[slot] = colour
                            results[slot] = UInt32(r) | UInt32(g) << 8 | UInt32(b) << 16
                        }
                        let result = results[slot]
                        output[i] = UInt8(truncatingIfNeeded: result)
                        output[i + 1] = UInt8(truncatingIfNeeded: result >> 8)
                        output[i + 2] = UInt8(truncatingIfNeeded: result >> 16)
                        if alpha { output[i + 3] = input[i + 3] }
                        i += bands
                    }
                }
            }
        }
    }
}
