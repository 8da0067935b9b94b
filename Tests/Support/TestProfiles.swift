import Foundation

/// ICC v2 display profiles written out field by field (D50 primaries and one gamma per profile),
/// for photos whose gamut makes any error in colour show: ProPhoto (ROMM, gamma 1.8), Adobe RGB
/// (1998) and Display P3 (gamma 2.2 for both: near enough for a test of the conversion).
public enum ROMMProfile {
    public static var data: Data {
        TestProfiles.display("ROMM RGB (test)", red: (0.7977, 0.2880, 0.0), green: (0.1352, 0.7119, 0.0), blue: (0.0313, 0.0001, 0.8249), gamma: 0x01CD)
    }
}

public enum TestProfiles {
    public static var adobeRGB: Data {
        display("Adobe RGB (1998) (test)", red: (0.6097, 0.3111, 0.0195), green: (0.2053, 0.6257, 0.0609), blue: (0.1492, 0.0632, 0.7446), gamma: 0x0233)
    }

    public static var displayP3: Data {
        display("Display P3 (test)", red: (0.5151, 0.2412, -0.0011), green: (0.2920, 0.6922, 0.0419), blue: (0.1571, 0.0666, 0.7841), gamma: 0x0233)
    }

    /// A grey display profile (gamma 2.2), as an editor embeds in a black-and-white photo.
    public static var grey: Data {
        display("Gray Gamma 2.2 (test)", grey: true, red: (0, 0, 0), green: (0, 0, 0), blue: (0, 0, 0), gamma: 0x0233)
    }

    /// A matrix/TRC display profile: primaries adapted to D50, one gamma (u8Fixed8) for all three;
    /// or, `grey`, a grey profile of that gamma (its one tone curve, no primaries).
    public static func display(_ name: String, grey: Bool = false, red: (Double, Double, Double), green: (Double, Double, Double), blue: (Double, Double, Double),
                        gamma value: UInt16) -> Data {
        func u32(_ value: Int) -> [UInt8] { [UInt8(value >> 24 & 255), UInt8(value >> 16 & 255), UInt8(value >> 8 & 255), UInt8(value & 255)] }
        func fixed(_ value: Double) -> [UInt8] { u32(Int((value * 65536).rounded()) & 0xFFFF_FFFF) }
        func xyz(_ v: (Double, Double, Double)) -> [UInt8] { Array("XYZ ".utf8) + u32(0) + fixed(v.0) + fixed(v.1) + fixed(v.2) }
        let gamma: [UInt8] = Array("curv".utf8) + u32(0) + u32(1) + [UInt8(value >> 8), UInt8(value & 255)] + [0, 0] // padded
        var description: [UInt8] = Array("desc".utf8) + u32(0) + u32(name.utf8.count + 1) + Array(name.utf8) + [0]
        description += u32(0) + u32(0) + [0, 0, 0] + [UInt8](repeating: 0, count: 67)
        while description.count % 4 != 0 { description.append(0) }
        let copyright: [UInt8] = Array("text".utf8) + u32(0) + Array("No copyright, test data\0".utf8)
        let tags: [(String, [UInt8])] = [("desc", description), ("cprt", copyright), ("wtpt", xyz((0.9642, 1.0, 0.8249)))]
            + (grey ? [("kTRC", gamma)] : [("rXYZ", xyz(red)), ("gXYZ", xyz(green)), ("bXYZ", xyz(blue)),
                                           ("rTRC", gamma), ("gTRC", gamma), ("bTRC", gamma)])
        var table: [UInt8] = u32(tags.count), bodies: [UInt8] = []
        let start = 128 + 4 + 12 * tags.count
        for (signature, body) in tags {
            table += Array(signature.utf8) + u32(start + bodies.count) + u32(body.count)
            bodies += body
            while bodies.count % 4 != 0 { bodies.append(0) }
        }
        var header: [UInt8] = u32(start + bodies.count) + u32(0) + [0x02, 0x10, 0, 0] + Array((grey ? "mntrGRAYXYZ " : "mntrRGB XYZ ").utf8)
        header += [0x07, 0xEA, 0, 11, 0, 25, 0, 0, 0, 0, 0, 0] + Array("acsp".utf8) + [UInt8](repeating: 0, count: 24)
        header += u32(0) + fixed(0.9642) + fixed(1.0) + fixed(0.8249) + [UInt8](repeating: 0, count: 48)
        return Data(header + table + bodies)
    }
}
