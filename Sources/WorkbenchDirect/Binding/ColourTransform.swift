import CLcms
import Synchronization

/// 8-bit RGB converted through an embedded ICC profile to sRGB with lcms2, as libvips'
/// `icc_transform` converts it for a decode (the same library, relative colorimetric intent as libvips 8.14 defaults to, libvips' own
/// sRGB profile as the target): what the direct path does to a thumbnail of a file with a
/// profile other than sRGB (Display P3, Adobe RGB, ProPhoto), after the resize, as libvips'
/// thumbnail does.
///
/// Building a transform costs about a millisecond of curve inversion, so one is made per distinct
/// profile and kept (a catalogue has few).
public final class ColourTransform: Sendable {
    /// lcms2's transform. Made with `cmsFLAGS_NOCACHE`, it keeps no state between calls, so
    /// `cmsDoTransform` may run on it from several threads at once (lcms2's documented rule);
    /// it is freed once, in `deinit`.
    private nonisolated(unsafe) let transform: cmsHTRANSFORM

    private init(_ transform: cmsHTRANSFORM) {
        self.transform = transform
    }

    deinit { cmsDeleteTransform(transform) }

    /// A source profile and a target, by their bytes.
    private struct Pair: Hashable {
        let source: [UInt8]
        let target: [UInt8]
    }

    /// Pairs seen so far: the transform, or nil where lcms2 cannot make one.
    private static let made = Mutex<[Pair: ColourTransform?]>([:])

    /// The transform from `profile` (an RGB display or input profile) to `target` (sRGB), or nil
    /// when lcms2 cannot read the profile or it is not RGB.
    public static func from(_ profile: [UInt8], to target: [UInt8]) -> ColourTransform? {
        let pair = Pair(source: profile, target: target)
        if let known = made.withLock({ $0[pair] }) { return known }
        let fresh = make(profile, target)
        made.withLock { cache in
            // A handful of profiles in any catalogue; a stream of distinct ones is not kept.
            if cache.count > 64 { cache.removeAll() }
            cache[pair] = .some(fresh)
        }
        return fresh
    }

    private static func make(_ profile: [UInt8], _ target: [UInt8]) -> ColourTransform? {
        guard let source = profile.withUnsafeBytes({ cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) }) else { return nil }
        defer { cmsCloseProfile(source) }
        guard let output = target.withUnsafeBytes({ cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) }) else { return nil }
        defer { cmsCloseProfile(output) }
        guard cmsGetColorSpace(source) == cmsSigRgbData, cmsGetColorSpace(output) == cmsSigRgbData else { return nil }
        // TYPE_RGB_8: 3 channels of 1 byte (lcms2's macros do not reach Swift).
        let rgb8 = cmsUInt32Number((4 << 16) | (3 << 3) | 1)
        guard let transform = cmsCreateTransform(source, rgb8, output, rgb8, cmsUInt32Number(INTENT_RELATIVE_COLORIMETRIC),
                                                 cmsUInt32Number(cmsFLAGS_NOCACHE)) else { return nil }
        return ColourTransform(transform)
    }

    /// `image`'s pixels converted in place (RGB only; grey is left as it is).
    public func apply(to image: inout PixelImage) {
        guard image.bands == 3 else { return }
        let count = image.width * image.height
        image.pixels.withUnsafeMutableBytes { pixels in
            cmsDoTransform(transform, pixels.baseAddress, pixels.baseAddress, cmsUInt32Number(count))
        }
    }
}
