import Foundation
import WorkbenchCore
import WorkbenchDirect

/// The chain the direct path runs without libvips (issue 36): `decode` → `thumbnail`/`resize`
/// fitting a box (never enlarging) → `encode` to JPEG with a quality and the
/// default metadata. Found once per preset from the decode's sole readers; per item the decode
/// still checks the file (`DirectSource.accepts`), and any failure goes back to libvips.
struct DirectChain: Sendable {
    let thumbnail: Thumbnail
    let quality: Int

    /// libvips' jpegsave quality when none is given.
    static let defaultQuality = 75

    /// The chain below a decode, if the direct path can run all of it.
    static func below(_ readers: [NodeFacts.Reader]) -> DirectChain? {
        guard readers.count >= 2, ShrinkableImage.readers.contains(readers[0].op), readers[1].op == "encode" else { return nil }
        let resize = readers[0].parameters, encode = readers[1].parameters
        guard resize.double("scale") == nil, resize.string("fit") ?? "contain" == "contain", resize.bool("upscale") != true,
              resize.int("width") != nil || resize.int("height") != nil else { return nil }
        // Exactly what libvips' own settings would write: nothing but a quality.
        guard encode.string("format") == "jpeg", Set(encode.names).isSubset(of: ["format", "Q", "metadata"]),
              encode["metadata"] == nil || encode["metadata"] == .string("strip") else { return nil }
        return DirectChain(thumbnail: Thumbnail(width: resize.int("width"), height: resize.int("height"), fast: resize.bool("fastShrink") != false),
                           quality: encode.int("Q") ?? defaultQuality)
    }
}
