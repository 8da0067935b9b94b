import WorkbenchCore
import WorkbenchDirect

/// The direct path's AVIF settings when an encode gives none, chosen by measurement
/// (`bench/avif-settings.sh`: 8 reference photos at 960 px, scored with SSIMULACRA2 against
/// libvips' thumbnail): Q 51 at libavif speed 6 with libaom's quantization matrices is 0.99×
/// the bytes of libvips' own default (Q 50, effort 4) at 0.43 points less, in 0.31× its CPU.
/// `effort` keeps libvips' scale (0–9, speed = 9 − effort), so effort 3 is speed 6.
enum AVIFDefaults {
    static let quality = 51
    static let effort = 3

    /// The encode's direct form for a given (or default) quality and effort.
    static func form(quality: Int?, effort: Int?) -> DirectForm {
        .avifEncode(quality: quality ?? Self.quality, speed: speed(effort: effort ?? Self.effort))
    }

    /// libvips' effort (0 fastest … 9 slowest) as libavif's speed (10 fastest … 0 slowest).
    static func speed(effort: Int) -> Int { max(0, min(10, 9 - effort)) }

    static let settings = AVIFCodec.Settings(quality: quality, speed: speed(effort: effort))
}
