import Foundation

/// The sRGB transfer curve, as libvips applies it when it converts between sRGB and linear light.
public enum SRGB {
    /// Encoded 0…1 to linear light 0…1.
    @inline(__always) public static func linear(_ v: Float) -> Float {
        v <= 0.04045 ? v / 12.92 : powf((v + 0.055) / 1.055, 2.4)
    }

    /// Linear light 0…1 to encoded 0…1 (clipped to 0…1 first).
    @inline(__always) public static func encoded(_ y: Float) -> Float {
        let c = min(max(y, 0), 1)
        return c <= 0.0031308 ? c * 12.92 : 1.055 * powf(c, 1 / 2.4) - 0.055
    }

    /// Linear light for every 8-bit and 16-bit sample.
    static let table8: [Float] = (0...255).map { linear(Float($0) / 255) }
    static let table16: [Float] = (0...65535).map { linear(Float($0) / 65535) }

    /// Encoded samples at evenly spaced linear values, rounded (one spare entry at the end), as
    /// libvips keeps them: encoding interpolates between entries, which is fast and gives
    /// libvips' own values.
    static let encoding8: [Float] = encodingTable(maximum: 255)
    static let encoding16: [Float] = encodingTable(maximum: 65535)

    private static func encodingTable(maximum: Int) -> [Float] {
        let entries = (0...maximum).map { (encoded(Float($0) / Float(maximum)) * Float(maximum)).rounded() }
        return entries + [entries[maximum]]
    }

    /// Linear light 0…1 to an encoded sample 0…maximum, through `table` (see `encoding8`).
    @inline(__always) static func encoded(_ y: Float, maximum: Float, table: UnsafeBufferPointer<Float>) -> Float {
        // Written so that NaN (a map's 0/0) lands on 0 rather than trapping in Int().
        let scaled = y * maximum
        let position = scaled > 0 ? min(scaled, maximum) : 0
        let i = Int(position)
        return table[i] + (table[i + 1] - table[i]) * (position - Float(i))
    }
}
