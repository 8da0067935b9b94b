import WorkbenchCore

/// The sizes a resize makes, all read from one `FitGeometry` of the image in this resize's box:
/// what libvips' thumbnail gives the full image when this resize is made from a larger one's
/// result, what `explain` says, and how large a fused result may be.
extension ResizeStage {
    /// The geometry of an image of `image` pixels (upright) in this resize's box.
    func geometry(of image: FitGeometry.Size) -> FitGeometry {
        request.geometry(of: image, dctScaled: false)
    }

    /// The size a thumbnail of the full image would have (libvips rounds once, from the full
    /// size), for a resize made from a larger one's result; nil when that result is the full
    /// image itself (nothing was shrunk) or its origin is unknown.
    func sizeFromFullImage(_ image: VipsImage) -> FitGeometry.Size? {
        guard let origin = image.origin, parameters.fit == .contain, parameters.scale == nil, !parameters.upscale else { return nil }
        let turned = origin.orientation >= 5
        let full = turned ? FitGeometry.Size(origin.storedHeight, origin.storedWidth) : FitGeometry.Size(origin.storedWidth, origin.storedHeight)
        guard FitGeometry.Size(image.width, image.height) != full else { return nil }
        return fitted(full)
    }

    /// The size libvips' thumbnail gives an image of size `full` in this fit's box (one
    /// rounding, from that size); nil when it would not shrink it.
    func fitted(_ full: FitGeometry.Size) -> FitGeometry.Size? {
        geometry(of: full).fitted
    }

    /// The size of the result for an image of `full` (upright) pixels, as the libvips path
    /// makes it; for `explain`.
    func resultSize(ofFull full: FitGeometry.Size) -> FitGeometry.Size {
        if let scale = parameters.scale {
            return .init(max(1, Int((Double(full.width) * scale).rounded())), max(1, Int((Double(full.height) * scale).rounded())))
        }
        let box = FitGeometry.Size(parameters.width ?? full.width, parameters.height ?? full.height)
        let fitFactor = geometry(of: full).factor
        switch parameters.fit {
        case .fill: return box
        case .cover:
            // Smaller than the box and not to be enlarged: kept, cut to the box where it is larger.
            guard fitFactor > 1 || parameters.upscale else { return .init(min(full.width, box.width), min(full.height, box.height)) }
            return box
        case .contain:
            guard fitFactor > 1 || parameters.upscale else { return full }
            return .init(max(1, Int((Double(full.width) / fitFactor).rounded())), max(1, Int((Double(full.height) / fitFactor).rounded())))
        }
    }

    /// At most how many pixels the result has.
    func expectedPixels(of image: VipsImage) -> Int {
        if parameters.fit == .fill { return Int(min(Double(parameters.width ?? Self.unbounded) * Double(parameters.height ?? Self.unbounded), 1e15)) }
        let fitFactor = geometry(of: .init(image.width, image.height)).factor
        let scale = parameters.upscale ? 1 / fitFactor : min(1 / fitFactor, 1)
        return Int(Double(image.width) * scale * Double(image.height) * scale)
    }
}
