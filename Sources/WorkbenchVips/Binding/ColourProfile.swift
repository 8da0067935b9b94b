import CVips
import Foundation

/// What an embedded ICC profile says about itself.
///
/// Converting through a profile builds a colour transform each time (lcms: ~1 ms of curve
/// inversion per image); a profile that only says "this is sRGB" changes nothing for an image
/// that is already sRGB, so `decode` skips it.
enum ColourProfile {
    /// Whether the profile's description names sRGB ("sRGB IEC61966-2.1", "sRGB built-in", …).
    static func describesSRGB(_ profile: Data) -> Bool {
        description(of: profile)?.hasPrefix("sRGB") ?? false
    }

    /// The `desc` tag: ASCII in version 2 profiles ('desc' type), UTF-16 in version 4 ('mluc').
    static func description(of profile: Data) -> String? {
        let bytes = [UInt8](profile)
        func u32(_ at: Int) -> Int? {
            guard at >= 0, at + 4 <= bytes.count else { return nil }
            return Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
        }
        guard let count = u32(128), count < 1000 else { return nil }
        for index in 0..<count {
            let entry = 132 + 12 * index
            guard let offset = u32(entry + 4), let size = u32(entry + 8), offset + size <= bytes.count, size >= 12 else { return nil }
            guard String(decoding: bytes[entry..<entry + 4], as: UTF8.self) == "desc" else { continue }
            let type = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            if type == "desc", let length = u32(offset + 8), offset + 12 + length <= bytes.count {
                return String(decoding: bytes[(offset + 12)..<(offset + 12 + length)].prefix { $0 != 0 }, as: UTF8.self)
            }
            if type == "mluc", let records = u32(offset + 8), records > 0, let length = u32(offset + 20), let start = u32(offset + 24),
               offset + start + length <= bytes.count {
                let utf16 = stride(from: offset + start, to: offset + start + length - 1, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
                return String(decoding: utf16, as: UTF16.self)
            }
            return nil
        }
        return nil
    }

    /// The image's embedded profile, if it has one.
    static func embedded(in image: VipsImage) -> Data? {
        var data: UnsafeRawPointer?
        var length = 0
        guard image.hasMetadata("icc-profile-data"), vips_image_get_blob(image.pointer, "icc-profile-data", &data, &length) == 0,
              let data else { return nil }
        return Data(bytes: data, count: length)
    }
}
