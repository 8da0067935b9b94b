import Foundation
import WorkbenchCore

/// The chain the direct path runs without libvips (issue 36): `decode` → `thumbnail`/`resize`
/// fitting a box (never enlarging) → `encode` to JPEG with a quality and the
/// default metadata. Found once per preset from the decode's sole readers; per item the decode
/// still checks the file (`DirectSource.refusal`), and any failure goes back to libvips.
enum DirectChain {
    /// libvips' jpegsave quality when none is given.
    static let defaultQuality = 75

    /// Whether the direct path can run all of the chain below a decode. The thumbnail and the
    /// encode read their own parameters when they run it.
    static func covers(_ readers: [NodeFacts.Reader]) -> Bool {
        guard readers.count >= 2, ShrinkableImage.readers.contains(readers[0].op), readers[1].op == "encode" else { return false }
        let resize = readers[0].parameters, encode = readers[1].parameters
        guard resize.double("scale") == nil, resize.string("fit") ?? "contain" == "contain", resize.bool("upscale") != true,
              resize.int("width") != nil || resize.int("height") != nil else { return false }
        // Exactly what libvips' own settings would write: nothing but a quality.
        return encode.string("format") == "jpeg" && Set(encode.names).isSubset(of: ["format", "Q", "metadata"])
            && (encode["metadata"] == nil || encode["metadata"] == .string("strip"))
    }

    /// Whether the chain's encode writes 4:2:0 (below quality 90, as libvips' jpegsave does).
    static func encodesSubsampled(_ readers: [NodeFacts.Reader]) -> Bool {
        readers.count >= 2 && (readers[1].parameters.int("Q") ?? defaultQuality) < 90
    }
}
