import WorkbenchCore

/// What `--verbose` and the report's `decodes` say of how an image was decoded for a resize:
/// the words of each way in one place.
enum DecodeNote {
    /// On the direct path: the DCT scale, the size it gave, and what came after.
    static func direct(_ geometry: FitGeometry, to size: (Int, Int), planar: Bool, orientation: Int, converted: Bool) -> String {
        // Sizes as stored, then the upright result's.
        let reduce = geometry.reduces ? "Lanczos-3 to \(size.0)×\(size.1)" : "nothing to reduce"
        let planes = planar ? " in YCbCr planes" : ""
        let turn = orientation == 1 ? "" : ", turned upright (EXIF orientation \(orientation))"
        let colour = converted ? ", converted to sRGB through its ICC profile" : ""
        return "direct path: libjpeg at 1/\(geometry.jpegShrink) (\(geometry.loaded)), \(reduce)\(planes)\(turn)\(colour)"
    }

    /// Decoded and shrunk in one step (shrink-on-load), and by what.
    static func fused(_ fused: VipsImage, loadedAs image: VipsImage, box: (width: Int?, height: Int?)) -> String {
        let origin = fused.origin
        let shrink = (origin?.jpegShrink ?? 1) > 1
            ? " (JPEG at 1/\(origin?.jpegShrink ?? 1)\(origin?.reducedByOurPasses == true ? ", reduced by our passes" : ""))"
            : origin?.reducedPremultiplied == true ? " (PNG decoded with libdeflate, reduced premultiplied on the direct path)"
            : origin?.decodedByPNGDecoder == true ? " (PNG decoded with libdeflate)"
            : origin?.pngDeclined.map { " (PNG decoded by libpng: our decoder declines \($0))" } ?? ""
        return "decode: loading with shrink-on-load for \(image.width)×\(image.height) → fit \(box.width.map(String.init) ?? "∞")×\(box.height.map(String.init) ?? "∞")\(shrink)"
    }

    /// The whole image decoded: shrink-on-load did not apply.
    static func whole(_ image: VipsImage) -> String {
        "decode: loading the whole image (\(image.width)×\(image.height)): shrink-on-load does not apply"
    }
}
