import CVips

/// Kinds of metadata `encode` can keep; everything else a camera or editor wrote is dropped.
enum MetadataKind: String, CaseIterable, Sendable {
    /// The ICC colour profile: how to show the colours, nothing private.
    case icc
    /// EXIF: camera, lens, serial numbers, GPS position, times; also comments in PNG, GIF, JPEG.
    case exif
    /// XMP: editing history, creator, rights.
    case xmp
    /// IPTC: captions, keywords, names.
    case iptc

    /// What `encode` keeps unless told otherwise: the colours, nothing that identifies anyone.
    static let keptByDefault: Set<MetadataKind> = [.icc]

    /// The kind a metadata field belongs to, or nil for the image's own description (size,
    /// resolution, loader) which savers need.
    static func of(field name: String) -> MetadataKind? {
        switch name {
        case "icc-profile-data": return .icc
        case "xmp-data": return .xmp
        case "iptc-data": return .iptc
        case "exif-data", "orientation": return .exif
        default:
            if name.hasPrefix("exif-") || name.contains("comment") { return .exif }
            return nil
        }
    }
}

extension VipsImage {
    /// The same pixels with only the `kept` kinds of metadata. Done on the image itself, so it
    /// holds for every saver (libvips 8.14's WebP saver ignores `strip`, and `strip` drops the
    /// colour profile too). Returns `self` when nothing is to be removed.
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
        guard !doomed.isEmpty else { return self }
        try checkSane(for: "metadata")
        let (copy, message) = VipsErrorLog.call({ cvips_private_copy(pointer) }, failed: { $0 == nil })
        guard let copy else { throw .operationFailed(operation: "copy", message: message ?? "libvips gave no message") }
        for name in doomed { _ = vips_image_remove(copy, name) }
        return VipsImage(owning: copy, origin: origin)
    }
}
