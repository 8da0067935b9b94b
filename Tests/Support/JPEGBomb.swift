import Foundation

/// Hand-made progressive JPEG headers: a frame of any size over as few bytes of scan data as
/// wanted, the shape of a decompression bomb.
public enum JPEGBomb {
    public static func make(width: Int, height: Int, components: Int = 3, dataBytes: Int = 64) -> Data {
        func segment(_ marker: UInt8, _ body: [UInt8]) -> [UInt8] {
            [0xFF, marker, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 255)] + body
        }
        var bytes: [UInt8] = [0xFF, 0xD8]
        bytes += segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
        var frame: [UInt8] = [8, UInt8(height >> 8), UInt8(height & 255), UInt8(width >> 8), UInt8(width & 255), UInt8(components)]
        for id in 1...components { frame += [UInt8(id), 0x11, 0] }
        bytes += segment(0xC2, frame)
        // One DC code, 1 bit long, for category 0.
        bytes += segment(0xC4, [0x00, 1] + [UInt8](repeating: 0, count: 15) + [0])
        var scan: [UInt8] = [UInt8(components)]
        for id in 1...components { scan += [UInt8(id), 0] }
        bytes += segment(0xDA, scan + [0, 0, 0])
        bytes += [UInt8](repeating: 0x12, count: dataBytes)
        bytes += [0xFF, 0xD9]
        return Data(bytes)
    }
}
