import Foundation
import WorkbenchCore
import WorkbenchDirect

/// A photo's placeholder: its ThumbHash (base64) and dominant colour, from one small file.
struct PicturePlaceholder {
    let thumbHash: String
    let colour: String
    /// The file they were computed from, relative to the output folder.
    let source: String

    /// The side of the pixels they are computed from: ThumbHash takes at most 100 × 100.
    static let side = 100

    /// From the smallest of `written` that libvips reads without the untrusted switch (a JPEG
    /// first at one size: it is shrunk on load), found under `root`. Nil, with a
    /// note saying why, when none can be read (a bucket output keeps no local copy).
    static func made(from written: [OutputFile], in root: String, note: (String) -> Void) -> PicturePlaceholder? {
        // Fastest to read first at one size: a JPEG is shrunk on load by its DCT.
        let readable = ["jpeg", "png", "webp", "gif", "tiff", "avif", "heif"]
        let rank = { (file: OutputFile) in readable.firstIndex(of: file.format ?? "") ?? readable.count }
        let candidates = written.filter { rank($0) < readable.count && $0.width != nil }
            .sorted { a, b in
                let (pa, pb) = ((a.width ?? 0) * (a.height ?? 0), (b.width ?? 0) * (b.height ?? 0))
                return pa != pb ? pa < pb : rank(a) < rank(b)
            }
        guard let smallest = candidates.first else {
            note("no placeholder: none of its files is a JPEG, WebP, PNG, GIF, AVIF, HEIF or TIFF")
            return nil
        }
        let path = (root as NSString).appendingPathComponent(smallest.path)
        guard let data = FileManager.default.contents(atPath: path) else {
            note("no placeholder: \(smallest.path) cannot be read back from \(root) (a bucket output keeps no copy here); give the picture \"placeholder\": false")
            return nil
        }
        do {
            let (rgba, width, height) = try pixels(of: data, origin: smallest.path)
            guard let hash = ThumbHash.encode(width: width, height: height, rgba: rgba),
                  let colour = DominantColour.of(rgba: rgba, count: width * height) else { return nil }
            return PicturePlaceholder(thumbHash: Data(hash).base64EncodedString(), colour: colour, source: smallest.path)
        } catch {
            note("no placeholder: \(smallest.path) could not be decoded (\(error))")
            return nil
        }
    }

    /// The file at `side` px at most, 8-bit sRGB with alpha. A JPEG (what the page's `<img>`
    /// shows, so there is always one) is decoded by libjpeg at the DCT scale that leaves at
    /// least twice the side and averaged down from there, with no libvips image: a tenth of a
    /// millisecond against several; anything else goes through libvips' thumbnail.
    static func pixels(of data: Data, origin: String) throws -> (rgba: [UInt8], width: Int, height: Int) {
        guard let header = JPEGCodec.header(data), header.colourSpace == 1 || header.colourSpace == 3 else {
            return try VipsImage.placeholderPixels(data, fitting: side, origin: origin)
        }
        let longer = max(header.width, header.height)
        let shrink = [8, 4, 2].first { (longer + $0 - 1) / $0 >= 2 * side } ?? 1
        let decoded = try JPEGCodec.decode(data, header: header, shrink: shrink)
        return averaged(decoded, fitting: side)
    }

    /// The image averaged down (each output pixel the mean of the input pixels it covers) to fit
    /// `side` × `side`, as RGBA.
    static func averaged(_ image: PixelImage, fitting side: Int) -> (rgba: [UInt8], width: Int, height: Int) {
        let scale = min(1, Double(side) / Double(max(image.width, image.height)))
        let width = max(1, Int((Double(image.width) * scale).rounded())), height = max(1, Int((Double(image.height) * scale).rounded()))
        var rgba = [UInt8](repeating: 255, count: width * height * 4)
        let bands = image.bands
        for y in 0..<height {
            let y0 = y * image.height / height, y1 = max(y0 + 1, (y + 1) * image.height / height)
            for x in 0..<width {
                let x0 = x * image.width / width, x1 = max(x0 + 1, (x + 1) * image.width / width)
                var sums = (0, 0, 0)
                for sy in y0..<y1 {
                    var i = (sy * image.width + x0) * bands
                    for _ in x0..<x1 {
                        let r = Int(image.pixels[i])
                        let g = bands == 3 ? Int(image.pixels[i + 1]) : r, b = bands == 3 ? Int(image.pixels[i + 2]) : r
                        sums.0 += r; sums.1 += g; sums.2 += b
                        i += bands
                    }
                }
                let count = (y1 - y0) * (x1 - x0), o = 4 * (y * width + x)
                rgba[o] = UInt8((sums.0 + count / 2) / count)
                rgba[o + 1] = UInt8((sums.1 + count / 2) / count)
                rgba[o + 2] = UInt8((sums.2 + count / 2) / count)
            }
        }
        return (rgba, width, height)
    }
}
