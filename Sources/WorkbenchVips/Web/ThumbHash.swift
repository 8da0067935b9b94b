import Foundation

/// A ThumbHash (Evan Wallace's placeholder format, about 25 bytes): a photo's average colour,
/// aspect ratio and a few cosine terms of its lightness, two colour differences and alpha, which
/// a page decodes into a blurred preview while the real file loads.
///
/// Made from at most 100 × 100 pixels (more would cost time and add nothing the terms keep).
enum ThumbHash {
    /// The hash of `width` × `height` pixels of 8-bit sRGB with alpha, not premultiplied, row
    /// by row. Nil when the image is empty or larger than 100 × 100.
    static func encode(width: Int, height: Int, rgba: [UInt8]) -> [UInt8]? {
        guard width > 0, height > 0, width <= 100, height <= 100, rgba.count >= width * height * 4 else { return nil }
        let count = width * height
        // The average colour, weighted by alpha: what transparent pixels are blended onto.
        var average = (r: 0.0, g: 0.0, b: 0.0, a: 0.0)
        for i in 0..<count {
            let alpha = Double(rgba[4 * i + 3]) / 255
            average.r += alpha / 255 * Double(rgba[4 * i])
            average.g += alpha / 255 * Double(rgba[4 * i + 1])
            average.b += alpha / 255 * Double(rgba[4 * i + 2])
            average.a += alpha
        }
        if average.a > 0 {
            average.r /= average.a
            average.g /= average.a
            average.b /= average.a
        }
        let hasAlpha = average.a < Double(count)
        // Lightness gets more terms along the longer side; fewer when alpha needs room.
        let lightTerms = hasAlpha ? 5.0 : 7.0
        let longer = Double(max(width, height))
        let lx = max(1, Int((lightTerms * Double(width) / longer).rounded()))
        let ly = max(1, Int((lightTerms * Double(height) / longer).rounded()))

        // Lightness, two colour differences (yellow–blue, red–green) and alpha, each pixel first
        // blended onto the average colour by its alpha.
        var l = [Double](repeating: 0, count: count), p = l, q = l, a = l
        for i in 0..<count {
            let alpha = Double(rgba[4 * i + 3]) / 255
            let r = average.r * (1 - alpha) + alpha / 255 * Double(rgba[4 * i])
            let g = average.g * (1 - alpha) + alpha / 255 * Double(rgba[4 * i + 1])
            let b = average.b * (1 - alpha) + alpha / 255 * Double(rgba[4 * i + 2])
            l[i] = (r + g + b) / 3
            p[i] = (r + g) / 2 - b
            q[i] = r - g
            a[i] = alpha
        }
        let light = Terms(l, width: width, height: height, nx: max(3, lx), ny: max(3, ly))
        let yellowBlue = Terms(p, width: width, height: height, nx: 3, ny: 3)
        let redGreen = Terms(q, width: width, height: height, nx: 3, ny: 3)
        let opacity = hasAlpha ? Terms(a, width: width, height: height, nx: 5, ny: 5) : nil

        let landscape = width > height
        let header24 = Self.quantise(63 * light.dc) | Self.quantise(31.5 + 31.5 * yellowBlue.dc) << 6
            | Self.quantise(31.5 + 31.5 * redGreen.dc) << 12 | Self.quantise(31 * light.scale) << 18 | (hasAlpha ? 1 << 23 : 0)
        let header16 = (landscape ? ly : lx) | Self.quantise(63 * yellowBlue.scale) << 3 | Self.quantise(63 * redGreen.scale) << 9
            | (landscape ? 1 << 15 : 0)
        var hash: [UInt8] = [UInt8(header24 & 255), UInt8(header24 >> 8 & 255), UInt8(header24 >> 16 & 255),
                             UInt8(header16 & 255), UInt8(header16 >> 8 & 255)]
        if let opacity { hash.append(UInt8(Self.quantise(15 * opacity.dc) | Self.quantise(15 * opacity.scale) << 4)) }
        // Every AC term as a nibble, two to a byte, low nibble first.
        let nibbles = ([light, yellowBlue, redGreen] + (opacity.map { [$0] } ?? [])).flatMap(\.ac).map { Self.quantise(15 * $0) }
        var packed = [UInt8](repeating: 0, count: (nibbles.count + 1) / 2)
        for (i, nibble) in nibbles.enumerated() { packed[i / 2] |= UInt8(nibble << ((i & 1) * 4)) }
        return hash + packed
    }

    private static func quantise(_ value: Double) -> Int { Int(value.rounded()) }

    /// One channel's cosine terms: the mean (`dc`) and the others scaled into 0…1 by the
    /// largest magnitude among them (`scale`). Only terms under the diagonal nx × (ny − y) are
    /// kept: the higher ones are details a placeholder does not show.
    private struct Terms {
        var dc = 0.0
        var ac: [Double] = []
        var scale = 0.0

        init(_ channel: [Double], width: Int, height: Int, nx: Int, ny: Int) {
            var columns = [Double](repeating: 0, count: width)
            for cy in 0..<ny {
                var cx = 0
                while cx * ny < nx * (ny - cy) {
                    for x in 0..<width { columns[x] = cos(Double.pi / Double(width) * Double(cx) * (Double(x) + 0.5)) }
                    var sum = 0.0
                    for y in 0..<height {
                        let row = cos(Double.pi / Double(height) * Double(cy) * (Double(y) + 0.5))
                        var across = 0.0
                        for x in 0..<width { across += channel[x + y * width] * columns[x] }
                        sum += across * row
                    }
                    let term = sum / Double(width * height)
                    if cx > 0 || cy > 0 {
                        ac.append(term)
                        scale = max(scale, abs(term))
                    } else {
                        dc = term
                    }
                    cx += 1
                }
            }
            if scale > 0 {
                ac = ac.map { 0.5 + 0.5 / scale * $0 }
            }
        }
    }
}
