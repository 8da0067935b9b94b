import Foundation
import WorkbenchCore

/// A photo's placeholder: its ThumbHash (base64) and dominant colour, from one small file.
struct PicturePlaceholder {
    let thumbHash: String
    let colour: String
    /// The file they were computed from, relative to the output folder.
    let source: String

    /// The side of the pixels they are computed from: ThumbHash takes at most 100 × 100.
    static let side = 100

    /// From the smallest of `written` that libvips reads without the untrusted switch (JPEG,
    /// WebP and PNG first: their decoders are the fastest), found under `root`. Nil, with a
    /// note saying why, when none can be read (a bucket output keeps no local copy).
    static func made(from written: [OutputFile], in root: String, note: (String) -> Void) -> PicturePlaceholder? {
        let quick = ["jpeg", "webp", "png"], readable = quick + ["gif", "avif", "heif", "tiff"]
        let candidates = written.filter { $0.format.map(readable.contains) ?? false && $0.width != nil }
            .sorted { a, b in
                let (pa, pb) = ((a.width ?? 0) * (a.height ?? 0), (b.width ?? 0) * (b.height ?? 0))
                return pa != pb ? pa < pb : quick.contains(a.format ?? "") && !quick.contains(b.format ?? "")
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
            let (rgba, width, height) = try VipsImage.placeholderPixels(data, fitting: side, origin: smallest.path)
            guard let hash = ThumbHash.encode(width: width, height: height, rgba: rgba),
                  let colour = DominantColour.of(rgba: rgba, count: width * height) else { return nil }
            return PicturePlaceholder(thumbHash: Data(hash).base64EncodedString(), colour: colour, source: smallest.path)
        } catch {
            note("no placeholder: \(smallest.path) could not be decoded (\(error))")
            return nil
        }
    }
}
