import CVips

/// What the libvips engines of the kernel filters are made of: arithmetic on colour bands and
/// tone curves by table, in libvips' own operations.
extension VipsImage {
    /// `body` on the colour bands only: alpha is set aside and joined back unchanged. The result
    /// is cast back to this image's format.
    func onColourBands(_ body: (VipsImage) throws -> VipsImage) throws -> VipsImage {
        guard hasAlpha else { return try body(self).rounded(to: format) }
        let colour = try extractBands(from: 0, count: bands - 1), alpha = try extractBands(from: bands - 1, count: 1)
        return try body(colour).rounded(to: format).joined(with: alpha)
    }

    /// This image in `other`'s band format, rounded to the nearest value for integer formats.
    func rounded(like other: VipsImage) throws -> VipsImage { try rounded(to: other.format) }

    /// This image in `target` format, rounded to the nearest value when that is an integer format.
    func rounded(to target: VipsBandFormat) throws -> VipsImage {
        guard format != target else { return self }
        let integerTarget = [VIPS_FORMAT_UCHAR, VIPS_FORMAT_USHORT, VIPS_FORMAT_CHAR, VIPS_FORMAT_SHORT, VIPS_FORMAT_UINT,
                             VIPS_FORMAT_INT].contains(target)
        let source = integerTarget && !isInteger ? try VipsOperationCall.image("round", self, ["round": .string("rint")]) : self
        return try source.cast(target)
    }

    /// A tone curve computed by libvips: `curve` maps sample values (0…white) to sample values.
    /// 8- and 16-bit images go through a table libvips computes with the curve (`identity`, then
    /// `maplut`, as libvips' own `gamma` does); float images through the curve directly.
    func toneMapped(_ curve: (VipsImage, Double) throws -> VipsImage) throws -> VipsImage {
        let white = whiteValue
        return try onColourBands { colour in
            guard colour.isInteger else { return try curve(colour, white) }
            let identity = try VipsOperationCall.image("identity", nil, ["ushort": .bool(colour.format == VIPS_FORMAT_USHORT)])
            let table = try curve(identity.cast(VIPS_FORMAT_FLOAT), white).rounded(to: colour.format)
            return try VipsOperationCall.image("maplut", colour, ["lut": .image(table)])
        }
    }

    /// This image with its samples stored as libvips' format `name` ("ushort", "double", …).
    func cast(named name: String) throws -> VipsImage {
        try VipsOperationCall.image("cast", self, ["format": .string(name)])
    }

    /// Grey images as sRGB (16-bit ones as 16-bit RGB); colour images as they are.
    func inColour() throws(VipsError) -> VipsImage {
        guard colourBands < 3 else { return self }
        return try colourspace(isSixteenBit ? VIPS_INTERPRETATION_RGB16 : VIPS_INTERPRETATION_sRGB)
    }

    /// `a · v + b` on every band, as float.
    func linear(_ a: Double, _ b: Double) throws -> VipsImage {
        try VipsOperationCall.image("linear", self, ["a": .doubles([a]), "b": .doubles([b])])
    }

    /// Each value kept within `low…high`, by libvips' arithmetic (8.14 has no clamp):
    /// max(v, low) = (v − low + |v − low|) / 2 + low, and likewise for the minimum.
    func clamped(_ low: Double, _ high: Double) throws -> VipsImage {
        let shifted = try linear(1, -low)
        let floor = try VipsOperationCall.image("add", shifted, ["right": .image(VipsOperationCall.image("abs", shifted))]).linear(0.5, 0)
        // Now 0 … ; min(x, span) = span − max(span − x, 0).
        let span = high - low
        let flipped = try floor.linear(-1, span)
        let capped = try VipsOperationCall.image("add", flipped, ["right": .image(VipsOperationCall.image("abs", flipped))]).linear(0.5, 0)
        return try capped.linear(-1, span + low)
    }
}
