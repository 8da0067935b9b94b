/// The EXIF segment libvips (through libexif) writes into a JPEG whose metadata was stripped:
/// orientation 1, 72 dpi, and the image's size. The bytes are libvips' own, field for field, so
/// a file made by the direct path carries exactly what the libvips path writes.
public enum ExifBlock {
    /// The APP1 body ("Exif\0\0" and a little-endian TIFF structure) for a `width` × `height` image.
    public static func stripped(width: Int, height: Int) -> [UInt8] {
        var bytes = template
        put(UInt32(clamping: width), at: widthOffset, in: &bytes)
        put(UInt32(clamping: height), at: heightOffset, in: &bytes)
        return bytes
    }

    private static func put(_ value: UInt32, at offset: Int, in bytes: inout [UInt8]) {
        for k in 0..<4 { bytes[offset + k] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(k))) }
    }

    /// IFD0: Orientation 1, XResolution and YResolution 72/1, ResolutionUnit inches,
    /// YCbCrPositioning centred, the Exif IFD's offset; Exif IFD: ExifVersion 0210,
    /// ComponentsConfiguration YCbCr, FlashpixVersion 0100, ColorSpace uncalibrated,
    /// PixelXDimension and PixelYDimension (written over at `widthOffset` and `heightOffset`).
    private static let template: [UInt8] = hex(
        "45786966000049492a000800000006001201030001000000010000001a01050001000000560000001b010500"
            + "010000005e000000280103000100000002000000130203000100000001000000698704000100000066000000"
            + "0000000048000000010000004800000001000000060000900700040000003032313001910700040000000102"
            + "030000a00700040000003031303001a0030001000000ffff000002a00400010000000000000003a004000100"
            + "00000000000000000000")
    /// Where the two dimensions' values sit in `template` (the PixelX/YDimension entries' value fields).
    private static let widthOffset = 166
    private static let heightOffset = 178

    private static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }
}
