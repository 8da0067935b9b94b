import WorkbenchCore

/// The sizes a resize works out: what libvips' thumbnail gives an image in this box, from the
/// full image when this resize is made from a larger one's result, and for `explain`.
extension ResizeStage {
    /// The size a thumbnail of the full image would have (libvips rounds once, from the full
    /// size), for a resize made from a larger one's result; nil when that result is the full
    /// image itself (nothing was shrunk) or its origin is unknown.
    func sizeFromFullImage(_ image: VipsImage) -> (width: Int, height: Int)? {
        guard let origin = image.origin, parameters.fit == .contain, parameters.scale == nil, !parameters.upscale else { return nil }
        let turned = origin.orientation >= 5
        let full = turned ? (origin.storedHeight, origin.storedWidth) : (origin.storedWidth, origin.storedHeight)
        guard (image.width, image.height) != full else { return nil }
        return fittedSize(of: full)
    }

    /// The size libvips' thumbnail gives an image of size `full` in this fit's box (one
    /// rounding, from that size); nil when it would not shrink it.
    func fittedSize(of full: (Int, Int)) -> (width: Int, height: Int)? {
        let shrink = max(parameters.width.map { Double(full.0) / Double($0) } ?? 0, parameters.height.map { Double(full.1) / Double($0) } ?? 0)
        guard shrink > 1 else { return nil }
        return (max(1, Int((Double(full.0) / shrink).rounded())), max(1, Int((Double(full.1) / shrink).rounded())))
    }

    /// The size of the result for an image of `full` (upright) pixels, as the libvips path
    /// makes it; for `explain`.
    func resultSize(ofFull full: (Int, Int)) -> (width: Int, height: Int) {
        if let scale = parameters.scale {
            return (max(1, Int((Double(full.0) * scale).rounded())), max(1, Int((Double(full.1) * scale).rounded())))
        }
        switch parameters.fit {
        case .fill: return (parameters.width ?? full.0, parameters.height ?? full.1)
        case .cover:
            let scale = max(Double(parameters.width ?? full.0) / Double(full.0), Double(parameters.height ?? full.1) / Double(full.1))
            guard scale < 1 || parameters.upscale else {
                return (min(full.0, parameters.width ?? full.0), min(full.1, parameters.height ?? full.1))
            }
            return (parameters.width ?? full.0, parameters.height ?? full.1)
        case .contain:
            if parameters.upscale {
                let scale = min(Double(parameters.width ?? Self.unbounded) / Double(full.0), Double(parameters.height ?? Self.unbounded) / Double(full.1))
                return (max(1, Int((Double(full.0) * scale).rounded())), max(1, Int((Double(full.1) * scale).rounded())))
            }
            return fittedSize(of: full) ?? (full.0, full.1)
        }
    }

    /// At most how many pixels the result has.
    func expectedPixels(of image: VipsImage) -> Int {
        let w = Double(parameters.width ?? Self.unbounded), h = Double(parameters.height ?? Self.unbounded)
        let scale = parameters.fit == .fill ? 1 : min(w / Double(image.width), h / Double(image.height))
        let factor = parameters.upscale || parameters.fit == .fill ? scale : min(scale, 1)
        if parameters.fit == .fill { return Int(min(w * h, 1e15)) }
        return Int(Double(image.width) * factor * Double(image.height) * factor)
    }
}
