import WorkbenchCore
import WorkbenchDirect

/// For `workbench explain PRESET FILE`: how each decode of the preset would take this file —
/// read from its header only, no pixel decoded — and why a faster way is declined.
public enum DecodeExplanation {
    /// Lines saying how the file would be decoded; `decodable` false when its header cannot be
    /// read (its item would fail).
    public static func explain(_ bytes: Bytes, in preset: Preset) -> (lines: [String], decodable: Bool) {
        // The words the run's decode fails with.
        if bytes.data.isEmpty { return (["cannot be decoded, so its item would fail: \(VipsDecoding.emptyFile)"], false) }
        let header: VipsImage
        do {
            header = try VipsImage.open(bytes, sequential: true, failOn: .none)
        } catch {
            return (["cannot be decoded, so its item would fail: \(error)"], false)
        }
        return (lines(bytes, header: header, in: preset), true)
    }

    private static func lines(_ bytes: Bytes, header: VipsImage, in preset: Preset) -> [String] {
        var lines: [String] = []
        let loader = FormatSniffer.loader(for: bytes.data) ?? "an unknown format"
        let format = loader.replacingOccurrences(of: "load_buffer", with: "").uppercased()
        let orientation = header.metadata(int: "orientation") ?? 1
        let profile = ColourProfile.embedded(in: header) != nil
        lines.append("\(format), \(header.width)×\(header.height)\(orientation > 1 ? ", EXIF orientation \(orientation)" : "")\(profile ? ", an ICC profile" : "")")
        // Item-scope decodes read the item's bytes; a run-scope one (a logo) reads its own file.
        for node in preset.nodes where node.op.shrinksOnLoad && node.scope == .item {
            guard let stage = node.stage as? OpenStage else { continue }
            let resize = node.plan.fusedInto.flatMap { id in preset.nodes.first { $0.id == id } }
            let resizeStage = resize?.stage as? ResizeStage
            if stage.direct {
                var line = "\(node.id): " + directPath(bytes, stage.options)
                if line.hasSuffix("no libvips image)"), let resizeStage {
                    line += " — " + scale(header, loader: loader, orientation: orientation, resize: resizeStage)
                }
                lines.append(line)
                continue
            }
            guard let resizeID = resize?.id, let resizeStage else {
                let readers = node.plan.readers
                lines.append("\(node.id): decoded whole, once (\(readers) node\(readers == 1 ? "" : "s") read\(readers == 1 ? "s" : "") it; none decodes and shrinks in one step)")
                continue
            }
            // As ResizeStage.run and VipsDecoding.thumbnail decide it.
            if resizeStage.parameters.scale != nil || !stage.options.toSRGB || stage.options.pages != 1 {
                let why = resizeStage.parameters.scale != nil ? "\(resizeID) scales by a factor, after a whole decode"
                    : "the decode keeps its colours as stored or reads several pages, which libvips' thumbnail does not"
                lines.append("\(node.id): decoded whole (\(header.width)×\(header.height)): \(why)")
                continue
            }
            let how: String
            if resizeStage.parameters.fit == .fill {
                how = "libvips' thumbnail picks the load size, then stretches it to \(size(resizeStage, header, orientation))"
            } else if loader == "pngload_buffer", let box = resizeStage.parameters.fitBox {
                how = png(bytes, header: header, options: stage.options, box: box)
            } else {
                how = scale(header, loader: loader, orientation: orientation, resize: resizeStage)
            }
            lines.append("\(node.id): decoded by \(resizeID) in one step — " + how)
        }
        return lines
    }

    /// The result's size, as the run makes it.
    private static func size(_ resize: ResizeStage, _ header: VipsImage, _ orientation: Int) -> String {
        let upright = orientation >= 5 ? FitGeometry.Size(header.height, header.width) : FitGeometry.Size(header.width, header.height)
        return "\(resize.resultSize(ofFull: upright))" + (resize.parameters.fit == .cover ? " (cropped: \(resize.parameters.crop.rawValue))" : "")
    }

    /// The JPEG scale a fused resize decodes `header`'s file at (libvips' rule, or fastShrink's:
    /// `VipsDecoding.jpegScale`, as the run chooses it), or who decides when it is not a JPEG.
    private static func scale(_ header: VipsImage, loader: String, orientation: Int, resize: ResizeStage) -> String {
        guard loader == "jpegload_buffer" else { return "libvips' thumbnail picks the load size for \(loader.replacingOccurrences(of: "load_buffer", with: "").uppercased())" }
        let p = resize.parameters
        let headroom = resize.request.headroom ?? 2
        // The geometry the run reads (`VipsDecoding.thumbnail`), in the file's stored orientation.
        let geometry = resize.request.geometry(of: .init(header.width, header.height), orientation: orientation)
        let (shrink, factor) = (geometry.jpegShrink, geometry.factor)
        let rule = headroom == 2 ? "leaving at least twice the target, libvips' rule" : "the smallest that covers the target (fastShrink)"
        let target = size(resize, header, orientation)
        let named = p.fitBox?.description ?? "\(p.width.map(String.init) ?? "∞")×\(p.height.map(String.init) ?? "∞")"
        if factor <= 1 {
            return "JPEG at full size: it is no larger than \(named), so it is kept as it is (\(target), never enlarged)"
        }
        if shrink == 1 {
            return "JPEG at full size: \(named) is \(String(format: "%.2f", factor))× smaller, less than \(Int(2 * headroom))× (\(rule)), then Lanczos-3 to \(target)"
        }
        let loaded = orientation >= 5 ? FitGeometry.Size(geometry.loaded.height, geometry.loaded.width) : geometry.loaded
        return "JPEG at 1/\(shrink) (\(loaded)), \(rule), then Lanczos-3 to \(target)"
    }

    /// How a fused resize to `box` takes a PNG: our decoder or libpng, then our premultiplied
    /// reduce (`VipsDecoding.premultipliedReduction`'s conditions) or libvips' thumbnail.
    private static func png(_ bytes: Bytes, header: VipsImage, options: DecodeOptions, box: FitBox) -> String {
        if let refusal = bytes.data.withUnsafeBytes({ PNGDecoder.refusal($0, maxPixels: options.maxPixels) }) {
            return "libpng decodes it, as our PNG decoder declines \(refusal); then libvips' thumbnail"
        }
        let decoder = "our PNG decoder (libdeflate's inflate)"
        let orientation = options.autorotate ? header.metadata(int: "orientation") ?? 1 : 1
        // As `decode` decides it (VipsDecoding.decode): a colour image whose profile is not sRGB.
        let colourManaged = header.bands > 2 && ColourProfile.embedded(in: header).map { !ColourProfile.describesSRGB($0) } ?? false
        if let reason = VipsDecoding.premultipliedRefusal(header, colourManaged: colourManaged, orientation: orientation) {
            return decoder + ", then libvips' thumbnail: " + reason
        }
        let geometry = FitGeometry(image: .init(header.width, header.height), width: box.width, height: box.height)
        guard geometry.factor > 1 else { return decoder + ", then libvips' thumbnail: no reduction (never enlarged)" }
        return decoder + ", then reduced premultiplied on the direct path to \(box.description), as libvips' thumbnail would"
    }

    private static func directPath(_ bytes: Bytes, _ options: DecodeOptions) -> String {
        guard FormatSniffer.loader(for: bytes.data) == "jpegload_buffer" else { return "libvips decodes it (the direct path takes JPEGs only)" }
        guard let header = JPEGCodec.header(bytes.data) else { return "libvips decodes it (libjpeg cannot read its header)" }
        if let reason = DirectSource.refusal(header, bytes, options) { return "libvips decodes it: the direct path declines \(reason)" }
        return "the direct path (libjpeg and our own resampler, no libvips image)"
    }
}
