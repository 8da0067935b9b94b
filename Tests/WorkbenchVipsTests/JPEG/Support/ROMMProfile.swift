import Foundation

/// An ICC v2 display profile for ProPhoto RGB (ROMM: its D50 primaries, gamma 1.8), written out
/// field by field, for photos whose wide gamut makes any error in the chroma show.
enum ROMMProfile {
    static var data: Data {
        func u32(_ value: Int) -> [UInt8] { [UInt8(value >> 24 & 255), UInt8(value >> 16 & 255), UInt8(value >> 8 & 255), UInt8(value & 255)] }
        func fixed(_ value: Double) -> [UInt8] { u32(Int((value * 65536).rounded()) & 0xFFFF_FFFF) }
        func xyz(_ x: Double, _ y: Double, _ z: Double) -> [UInt8] { Array("XYZ ".utf8) + u32(0) + fixed(x) + fixed(y) + fixed(z) }
        let gamma: [UInt8] = Array("curv".utf8) + u32(0) + u32(1) + [0x01, 0xCD] + [0, 0] // 1.8 in u8Fixed8, padded
        let name = "ROMM RGB (test)"
        var description: [UInt8] = Array("desc".utf8) + u32(0) + u32(name.utf8.count + 1) + Array(name.utf8) + [0]
        description += u32(0) + u32(0) + [0, 0, 0] + [UInt8](repeating: 0, count: 67)
        while description.count % 4 != 0 { description.append(0) }
        let copyright: [UInt8] = Array("text".utf8) + u32(0) + Array("No copyright, test data\0".utf8)
        let tags: [(String, [UInt8])] = [
            ("desc", description), ("cprt", copyright), ("wtpt", xyz(0.9642, 1.0, 0.8249)),
            ("rXYZ", xyz(0.7977, 0.2880, 0.0)), ("gXYZ", xyz(0.1352, 0.7119, 0.0)), ("bXYZ", xyz(0.0313, 0.0001, 0.8249)),
            ("rTRC", gamma), ("gTRC", gamma), ("bTRC", gamma),
        ]
        var table: [UInt8] = u32(tags.count), bodies: [UInt8] = []
        let start = 128 + 4 + 12 * tags.count
        for (signature, body) in tags {
            table += Array(signature.utf8) + u32(start + bodies.count) + u32(body.count)
            bodies += body
            while bodies.count % 4 != 0 { bodies.append(0) }
        }
        var header: [UInt8] = u32(start + bodies.count) + u32(0) + [0x02, 0x10, 0, 0] + Array("mntrRGB XYZ ".utf8)
        header += [0x07, 0xEA, 0, 11, 0, 25, 0, 0, 0, 0, 0, 0] + Array("acsp".utf8) + [UInt8](repeating: 0, count: 24)
        header += u32(0) + fixed(0.9642) + fixed(1.0) + fixed(0.8249) + [UInt8](repeating: 0, count: 48)
        return Data(header + table + bodies)
    }
}
