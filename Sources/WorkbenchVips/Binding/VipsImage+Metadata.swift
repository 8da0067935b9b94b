import CVips

/// Kinds of metadata `encode` can keep; everything else a camera or editor wrote is dropped.
enum MetadataKind: String, CaseIterable, Sendable {
    /// The ICC colour profile: how to show the colours, nothing private.
    case icc
    /// EXIF and everything else a camera or editor wrote: camera, lens, serial numbers, GPS
    /// position, times, maker notes, the embedded preview of the original, comments,
    /// descriptions, the print resolution.
    case exif
    /// XMP: editing history, creator, rights.
    case xmp
    /// IPTC (and the Photoshop resources that carry it): captions, keywords, names.
    case iptc

    /// What `encode` keeps unless told otherwise: the colours, nothing that identifies anyone.
    static let keptByDefault: Set<MetadataKind> = [.icc]

    /// The kind a metadata field belongs to, or nil for the image's own description (size,
    /// layout, orientation, how the pixels were coded) which savers need. A field this list does
    /// not know counts as `.exif`: libvips' loaders add fields over time (`jpeg-thumbnail-data`,
    /// `image-description`, `magick-*`), and one unknown must never leak through `strip`.
    static func of(field name: String) -> MetadataKind? {
        switch name {
        case "icc-profile-data": return .icc
        case "xmp-data": return .xmp
        case "iptc-data", "photoshop-data": return .iptc
        default: return layoutFields.contains(name) ? nil : .exif
        }
    }

    /// Fields that describe the pixels rather than where they came from: the header, the page
    /// and animation layout, how the source was coded, and the orientation (without it an image
    /// decoded with `autorotate: false` would show on its side).
    static let layoutFields: Set<String> = [
        "width", "height", "bands", "format", "coding", "interpretation", "xoffset", "yoffset",
        "xres", "yres", "filename", "vips-loader", "vips-sequential", "scale", "offset", "orientation",
        "page-height", "n-pages", "delay", "loop", "gif-delay", "gif-loop", "gif-palette", "background",
        "interlaced", "bits-per-sample", "palette-bit-depth", "heif-primary", "heif-compression",
        "heif-bitdepth", "jpeg-multiscan", "jpeg-chroma-subsample", "tiff-compression", "tiff-photometric",
    ]

    /// The resolution a stripped file declares: 72 dpi, the value that says "unknown" to most
    /// software, in libvips' pixels per millimetre. The source's (350 dpi from an editor, say)
    /// is part of what it wrote.
    static let neutralResolution = 72 / 25.4
}

extension VipsImage {
    /// The same pixels with only the `kept` kinds of metadata. Done on the image itself, so it
    /// holds for every saver (libvips 8.14's WebP saver ignores `strip`, and `strip` drops the
    /// colour profile too). libvips' savers rebuild an EXIF block from what the header still
    /// says (the embedded preview from `jpeg-thumbnail-data`, the resolution from xres/yres), so
    /// without `.exif` those go too. Returns `self` when nothing is to be removed.
    func keepingMetadata(_ kept: Set<MetadataKind>) throws(VipsError) -> VipsImage {
        guard let fields = cvips_image_fields(pointer) else { return self }
        defer { g_strfreev(fields) }
        var doomed: [String] = []
        var i = 0
        while let field = fields[i] {
            let name = String(cString: field)
            if let kind = MetadataKind.of(field: name), !kept.contains(kind) { doomed.append(name) }
            i += 1
        }
        let neutral = MetadataKind.neutralResolution
        let resetResolution = !kept.contains(.exif)
            && (cvips_xres(pointer) != neutral || cvips_yres(pointer) != neutral)
        guard !doomed.isEmpty || resetResolution else { return self }
        try checkSane(for: "metadata")
        let (copy, message) = VipsErrorLog.call({ cvips_private_copy(pointer) }, failed: { $0 == nil })
        guard let copy else { throw .operationFailed(operation: "copy", message: message ?? "libvips gave no message") }
        // The result says only whether the field was there, and every name came from the image.
        for name in doomed { _ = vips_image_remove(copy, name) }
        if resetResolution { cvips_set_resolution(copy, neutral, neutral) }
        return VipsImage(owning: copy, origin: origin, depth: depth + 1)
    }
}
