import Foundation
import WorkbenchDirect

/// What an embedded ICC profile says about itself.
///
/// Converting through a profile builds a colour transform each time (lcms: ~1 ms of curve
/// inversion per image); a profile that only says "this is sRGB" changes nothing for an image
/// that is already sRGB, so `decode` skips it.
enum ColourProfile {
    /// Whether the profile is sRGB (`ICCProfile.isSRGB`: named sRGB, with sRGB's primaries).
    static func describesSRGB(_ profile: Data) -> Bool {
        ICCProfile([UInt8](profile)).isSRGB
    }

    /// libvips' own sRGB profile: what `icc_transform` to "srgb" attaches, so what a converted
    /// image's files carry. Read once from libvips; nil if it cannot give it (then files with
    /// another profile are left to libvips, which converts them itself).
    static let libvipsSRGB: [UInt8]? = {
        guard let info = VipsIntrospection.operation("profile_load"),
              let name = info.arguments.first(where: { $0.name == "name" && $0.isInput }),
              // Nil is an answer here (see above): such files then go to libvips, which converts them.
              let outputs = try? VipsOperationCall.run(info, [(name, .string("srgb"))], cancellation: nil) else { return nil }
        return outputs.blobs["profile"].map { [UInt8]($0) }
    }()

    /// The image's embedded profile, if it has one.
    static func embedded(in image: VipsImage) -> Data? { image.iccProfile }
}
