import WorkbenchCore
import WorkbenchKernels

/// Filters that read the pixels around each pixel: `boxBlur`, `pixelate`, `median`, `convolve`.
/// Every band is filtered, alpha too, as libvips' convolutions do; beyond the image's edges
/// the edge pixels repeat.
enum AreaKernelFilters {
    struct BoxBlurParameters: OpParameters {
        var radius = 5
        static let bindings: [ParameterBinding<Self>] = [
            .int("radius", \.radius, 1...200, "The square is 2·radius + 1 pixels wide.", .init(pixels: true)),
        ]
    }

    static let boxBlur = KernelFilter.define("boxBlur", "Blurs with the plain mean of a square around each pixel; as fast at radius 50 as at 1.",
                                             BoxBlurParameters.self, swift: { p in BoxBlur(radius: p.radius) },
       vips: { p in
        let span = 2 * p.radius + 1
        return { image, _ in
            // A separable box: the same mean as the square, in two passes of one row and one
            // column, in floating point (integer passes would round between them).
            let mask = try VipsOperationCall.matrix([Array(repeating: 1, count: span)], scale: Double(span))
            return try FilterStage.vips("convsep", image, ["mask": .image(mask), "precision": .string("float")])
                .rounded(like: image)
        }
    })

    struct PixelateParameters: OpParameters {
        var size = 16
        static let bindings: [ParameterBinding<Self>] = [
            .int("size", \.size, 2...512, "The side of the squares, in pixels.", .init(pixels: true)),
        ]
    }

    static let pixelate = KernelFilter.define("pixelate", "Turns the image into squares of one colour each, the mean of what they cover.",
                                              PixelateParameters.self, swift: { p in Pixelate(size: p.size) },
       vips: { p in
        let size = p.size
        return { image, _ in
            // libvips 8.14 still checks the deprecated names (xshrink, yshrink) as required.
            let narrow = try FilterStage.vips("shrinkh", image, ["hshrink": .int(size), "xshrink": .int(size), "ceil": .bool(true)])
            let small = try FilterStage.vips("shrinkv", narrow, ["vshrink": .int(size), "yshrink": .int(size), "ceil": .bool(true)])
            let big = try FilterStage.vips("zoom", small, ["xfac": .int(size), "yfac": .int(size)])
            return try FilterStage.vips("extract_area", big, ["left": .int(0), "top": .int(0), "width": .int(image.width), "height": .int(image.height)])
        }
    })

    struct MedianParameters: OpParameters {
        var size = 3
        static let bindings: [ParameterBinding<Self>] = [
            .int("size", \.size, 3...5, "The neighbourhood: 3 (3×3) or 5 (5×5)."),
        ]
    }

    static let median = KernelFilter.define("median", "Replaces each value by the median of its neighbourhood: removes specks, keeps edges.",
                                            MedianParameters.self, check: { p in p.size == 4 ? "\"size\" is 3 or 5 (the neighbourhood has a centre pixel)" : nil },
       swift: { p in Median(size: p.size) },
       vips: { p in
        let size = p.size
        return { image, _ in
            // libvips 8.14's 8-bit rank (its histogram path) picks wrong values for 5×5 windows;
            // its 16-bit path is right, and holds 8-bit values exactly.
            let wide = image.formatName == "uchar" ? try image.cast(named: "ushort") : image
            return try FilterStage.vips("rank", wide, ["width": .int(size), "height": .int(size), "index": .int(size * size / 2)])
                .rounded(like: image)
        }
    })

    struct ConvolveParameters: OpParameters {
        var mask: [[Double]] = []
        var scale = 0.0, offset = 0.0

        static let bindings: [ParameterBinding<Self>] = [
            .matrix("mask", \.mask, "Rows of weights, odd sides up to 7×7, integers or not, e.g. [[0, -1, 0], [-1, 5, -1], [0, -1, 0]].", .init(required: true)),
            .double("scale", \.scale, -1e9...1e9, "Divides the sum; 0 means the sum of the mask (or 1 if that is 0)."),
            .double("offset", \.offset, -1e9...1e9, "Added after dividing."),
        ]

        /// What the sum is divided by: the given scale, else the mask's sum (1 if that is 0).
        var divisor: Double {
            guard scale == 0 else { return scale }
            let sum = mask.joined().reduce(0, +)
            return sum == 0 ? 1 : sum
        }
    }

    static let convolve = KernelFilter.define("convolve", "Convolves with a mask: out = Σ mask · pixels / scale + offset.",
                                              ConvolveParameters.self, fasterFor: { p in
        let mask = Convolution(mask: p.mask, scale: 1, offset: 0)
        return mask.separated != nil || mask.mask.joined().filter { $0 != 0 }.count <= 9 ? .swift : .vips
    }, check: { p in
        let mask = p.mask
        let rows = mask.count, columns = mask.first?.count ?? 0
        guard rows % 2 == 1, columns % 2 == 1, rows <= 7, columns <= 7 else {
            return "\"mask\" is \(rows)×\(columns); it needs odd sides up to 7 (3×3, 5×5, 7×7, 1×5, …)"
        }
        return nil
    }, swift: { p in
        Convolution(mask: p.mask, scale: p.divisor, offset: p.offset)
    }, vips: { p in
        let (mask, scale, offset) = (p.mask, p.divisor, p.offset)
        let integer = mask.joined().allSatisfy { $0 == $0.rounded() }
        return { image, _ in
            let matrix = try VipsOperationCall.matrix(mask, scale: scale, offset: offset)
            return try FilterStage.vips("conv", image, ["mask": .image(matrix), "precision": .string(integer && image.isInteger ? "integer" : "float")])
                .rounded(like: image)
        }
    })

    static let all = [boxBlur, pixelate, median, convolve]
}
