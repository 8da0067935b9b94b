import Foundation

/// The colour most of a photo is: a page's background while the file loads, or a card's tint.
///
/// Pixels are grouped by their sRGB colour in 8 × 8 × 8 boxes (near colours together, as the eye
/// groups them), the fullest box wins, and its pixels are averaged in linear light, so a box of
/// dark and light greens gives the green they make together on screen, not a darker one.
/// Pixels less than half opaque count only when nothing else does.
enum DominantColour {
    /// `"#rrggbb"` of `count` pixels of 8-bit sRGB with alpha; nil for no pixels.
    static func of(rgba: [UInt8], count: Int) -> String? {
        guard count > 0, rgba.count >= count * 4 else { return nil }
        let opaque = (0..<count).contains { rgba[4 * $0 + 3] >= 128 }
        var pixels = [Int](repeating: 0, count: 512)
        var sums = [(r: Double, g: Double, b: Double)](repeating: (0, 0, 0), count: 512)
        for i in 0..<count where !opaque || rgba[4 * i + 3] >= 128 {
            let (r, g, b) = (Int(rgba[4 * i]), Int(rgba[4 * i + 1]), Int(rgba[4 * i + 2]))
            let box = (r >> 5) << 6 | (g >> 5) << 3 | b >> 5
            pixels[box] += 1
            sums[box].r += linear[r]
            sums[box].g += linear[g]
            sums[box].b += linear[b]
        }
        guard let fullest = pixels.indices.max(by: { pixels[$0] < pixels[$1] }), pixels[fullest] > 0 else { return nil }
        let n = Double(pixels[fullest])
        let channels = [sums[fullest].r, sums[fullest].g, sums[fullest].b].map { encoded($0 / n) }
        return "#" + channels.map { String(format: "%02x", $0) }.joined()
    }

    /// sRGB's transfer function, 8-bit value → linear light 0…1.
    static let linear: [Double] = (0..<256).map { value in
        let v = Double(value) / 255
        return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    /// Linear light 0…1 → 8-bit sRGB.
    static func encoded(_ value: Double) -> Int {
        let v = min(max(value, 0), 1)
        let s = v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055
        return Int((s * 255).rounded())
    }
}
