/// The saver options `encode` gives a format when the preset gives none, where measurement
/// chose other values than libvips' own; the same on the direct path and on libvips'.
enum EncodeDefaults {
    /// JPEG XL's effort: libjxl's 5 against libvips' 7 is 0.52× the CPU at 0.98× the bytes and
    /// 0.26 SSIMULACRA2 points less (`bench/jxl-settings.py`, 8 photos at 960 px, libvips' Q 75).
    static let jxlEffort = 5

    /// By format, in libvips' option names (AVIF's in `AVIFDefaults`).
    static func options(for format: String) -> [String: Int] {
        switch format {
        case "avif": return [EncodeStage.qualityName: AVIFDefaults.quality, "effort": AVIFDefaults.effort]
        case "jxl": return ["effort": jxlEffort]
        default: return [:]
        }
    }
}
