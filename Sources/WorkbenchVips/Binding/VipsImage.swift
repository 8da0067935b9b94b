import CVips
import Foundation
import WorkbenchCore

/// A libvips image: a lazy node of a libvips pipeline, evaluated when it is encoded.
///
/// `@unchecked Sendable` is safe because a `VipsImage` is never mutated after it is built:
/// libvips lets any thread read an image and build new images from it, and GObject's
/// reference count, the only state `deinit` touches, is atomic.
public final class VipsImage: ImageHandle, @unchecked Sendable {
    let pointer: UnsafeMutablePointer<CVips.VipsImage>
    /// The decode this image was made from (through any operations), so a failure or warning
    /// found when it is finally evaluated can be traced to damage in those bytes.
    let origin: DecodedSource?
    /// How many operations deep its lazy pipeline is since the last image held in memory (a
    /// decode is 0): libvips computes a region by recursing through every stage above it.
    let depth: Int

    /// Takes over one reference.
    init(owning pointer: UnsafeMutablePointer<CVips.VipsImage>, origin: DecodedSource? = nil, depth: Int = 0) {
        self.pointer = pointer
        self.origin = origin
        self.depth = depth
    }

    /// The same libvips image, made from `origin`'s bytes, `depth` operations deep.
    func relabelled(origin: DecodedSource?, depth: Int) -> VipsImage {
        g_object_ref(pointer)
        return VipsImage(owning: pointer, origin: origin, depth: depth)
    }

    /// The same libvips image, made from `origin`'s bytes.
    func withOrigin(_ origin: DecodedSource) -> VipsImage { relabelled(origin: origin, depth: depth) }

    deinit {
        let pointer = self.pointer
        VipsRelease.run { cvips_image_unref(pointer) }
    }

    public var width: Int { Int(vips_image_get_width(pointer)) }
    public var height: Int { Int(vips_image_get_height(pointer)) }
    public var bands: Int { Int(vips_image_get_bands(pointer)) }
    public var hasAlpha: Bool { vips_image_hasalpha(pointer) != 0 }
    public var pixelBytes: Int { width * height * bands * Int(vips_format_sizeof(format)) }
    /// Computed into memory, unless it is there already.
    public func keptForReuse() throws -> any ImageHandle {
        let held = [VIPS_IMAGE_SETBUF, VIPS_IMAGE_SETBUF_FOREIGN, VIPS_IMAGE_MMAPIN].contains(pointer.pointee.dtype)
        return held ? self : try inMemory().image
    }
    var format: VipsBandFormat { vips_image_get_format(pointer) }
    var interpretation: VipsInterpretation { vips_image_get_interpretation(pointer) }

    /// libvips' name of the band format: "uchar", "ushort", "float", "double", …
    public var formatName: String { String(cString: vips_enum_nick(vips_band_format_get_type(), Int32(format.rawValue))) }
    /// libvips' name of the interpretation: "srgb", "b-w", "rgb16", "grey16", "multiband", …
    public var interpretationName: String {
        String(cString: vips_enum_nick(vips_interpretation_get_type(), Int32(interpretation.rawValue)))
    }
    /// 16-bit samples.
    var isSixteenBit: Bool { format == VIPS_FORMAT_USHORT }
    /// 8-bit or 16-bit samples (not float).
    var isInteger: Bool { [VIPS_FORMAT_UCHAR, VIPS_FORMAT_USHORT].contains(format) }
    /// Bands that carry colour (all but alpha).
    var colourBands: Int { hasAlpha ? bands - 1 : bands }

    /// The value of white: 255 for 8-bit and float sRGB, 65535 for 16-bit, 1 for scRGB.
    var whiteValue: Double {
        switch format {
        case VIPS_FORMAT_UCHAR: return 255
        case VIPS_FORMAT_USHORT: return 65535
        default: return [VIPS_INTERPRETATION_scRGB, VIPS_INTERPRETATION_XYZ].contains(interpretation) ? 1 : 255
        }
    }

    /// The loader that read the bytes (chosen from their content), e.g. "jpegload_buffer".
    public var loader: String? {
        var value: UnsafePointer<CChar>?
        guard vips_image_get_string(pointer, "vips-loader", &value) == 0, let value else { return nil }
        return String(cString: value)
    }

    /// Width, height and format (`"jpeg"`, `"png"`, …) of an image file, from its header; nil
    /// when it is not an image libvips reads. For reports of what a run wrote.
    public static func summary(ofFile path: String) -> (width: Int, height: Int, format: String)? {
        // A report's summary of a written file is optional: unreadable, it is left out.
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe),
              let image = try? open(Bytes(data, origin: path), sequential: true, failOn: .none) else { return nil }
        let loader = image.loader ?? ""
        let format = loader.components(separatedBy: "load").first ?? loader
        return (image.width, image.height, format.isEmpty ? "unknown" : format)
    }

    /// Opens encoded bytes (the format sniffed from the content); reads the header only.
    static func open(_ bytes: Bytes, sequential: Bool, failOn: DecodeOptions.FailOn, pages: Int32 = 0) throws(VipsError) -> VipsImage {
        try VipsRuntime.start()
        if let loader = FormatSniffer.loader(for: bytes.data), let info = VipsIntrospection.operation(loader) {
            var named: [String: VipsArgumentValue] = [
                "buffer": .blob(bytes.data), "access": .access(sequential: sequential), "fail_on": .failOn(failOn),
            ]
            if pages != 0 && info.arguments.contains(where: { $0.name == "n" }) { named["n"] = .int(Int(pages)) }
            do {
                return try VipsOperationCall.image(loader, nil, named)
            } catch {
                let message: String
                switch error {
                case .operationFailed(_, let text): message = text
                default: message = error.description
                }
                throw .decodeFailed(origin: bytes.origin, message: message)
            }
        }
        // An unknown format: libvips tries every loader's test, and some freeze its error buffer.
        // Any module's loader may be the one.
        VipsModules.loadAll()
        let (image, message) = VipsErrorLog.call(exclusive: true, {
            bytes.data.withUnsafeBytes { buffer in
                cvips_image_new_from_copied_bytes(buffer.baseAddress, buffer.count,
                                                  sequential ? VIPS_ACCESS_SEQUENTIAL : VIPS_ACCESS_RANDOM, failOn.level, pages)
            }
        }, failed: { $0 == nil })
        guard let image else {
            throw .decodeFailed(origin: bytes.origin, message: VipsLoaders.explain(bytes, message: message))
        }
        return VipsImage(owning: image)
    }

    /// Refuses an image libvips would abort on (zero width or height, no bands, a broken
    /// header) before it reaches an operation.
    func checkSane(for operation: String) throws(VipsError) {
        guard width > 0, height > 0, bands > 0, vips_object_sanity(cvips_image_object(pointer)) != 0 else {
            throw .operationFailed(operation: operation, message: "its input is \(width)×\(height) with \(bands) bands, which libvips cannot process")
        }
    }

    /// An integer metadata field, if the image has it.
    func metadata(int name: String) -> Int? {
        guard vips_image_get_typeof(pointer, name) != 0 else { return nil }
        var value: Int32 = 0
        return vips_image_get_int(pointer, name, &value) == 0 ? Int(value) : nil
    }

    func hasMetadata(_ name: String) -> Bool { vips_image_get_typeof(pointer, name) != 0 }

    /// Runs one libvips operation that writes a new image to `out`.
    func derive(_ operation: String,
                _ call: (UnsafeMutablePointer<UnsafeMutablePointer<CVips.VipsImage>?>) -> Int32) throws(VipsError) -> VipsImage {
        var out: UnsafeMutablePointer<CVips.VipsImage>?
        let (status, message) = VipsErrorLog.call({ call(&out) }, failed: { $0 != 0 })
        guard status == 0, let out else {
            throw .operationFailed(operation: operation, message: message ?? "libvips gave no message")
        }
        return VipsImage(owning: out, origin: origin, depth: depth + 1)
    }

    /// Copies and clears libvips' error buffer (one buffer for the whole process).
    static func takeErrorMessage() -> String {
        guard let raw = vips_error_buffer_copy() else { return "libvips gave no message" }
        defer { g_free(raw) }
        let text = String(cString: raw).trimmingCharacters(in: .whitespacesAndNewlines)
            .split(separator: "\n").joined(separator: "; ")
        guard !text.isEmpty else { return "libvips gave no message" }
        // GLib's words for a thread or a buffer the system refused: say which limit and what to do.
        if text.contains("Error creating thread") || VipsError.isMemory(text) {
            return text + " (" + ProcessLimits.advice + ")"
        }
        return text
    }
}
