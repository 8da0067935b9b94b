import WorkbenchCore

/// Parameters measured in pixels (a blur's sigma, a crop's box, a watermark's margin), scaled
/// from the full-size image to the preview copy, so a preview looks as the file will at the
/// size it is shown. Each node's scale follows its first input: decoded, the copy is the
/// original times copy/original; after a resize the file has the resize's size and the copy
/// what the same resize makes of it.
///
/// A resize to a fixed box (`cover` or `fill`, both sides given) decides its framing from the
/// box's shape: on a copy smaller than the box it would not be enlarged and would frame
/// otherwise (a 480×320 cover from a 512×288 copy came out 480×288). Its box is then shrunk by
/// the copy's scale, so the preview is the file in miniature — the same crop, the same margins.
enum PreviewScale {
    /// One scaled value, for the page's note.
    struct Scaled: Sendable, Encodable {
        let node: String
        let key: String
        let from: String
        let to: String
    }

    struct Size {
        var width: Double
        var height: Double
        var edge: Double { max(width, height) }
        func scaled(_ factor: Double) -> Size { Size(width: width * factor, height: height * factor) }
    }

    /// The overrides that scale `preset`'s pixel parameters for a copy of an original, given
    /// by their longest sides (a square stands in for both).
    static func overrides(_ preset: Preset, copy: Int, original: Int) -> [Scaled] {
        overrides(preset, copy: Size(width: Double(copy), height: Double(copy)), original: Size(width: Double(original), height: Double(original)))
    }

    /// The overrides that scale `preset`'s pixel parameters for a copy of an original.
    static func overrides(_ preset: Preset, copy: Size, original: Size) -> [Scaled] {
        guard copy.edge > 0, original.edge > 0 else { return [] }
        var full: [String: Size] = [:], small: [String: Size] = [:]
        var scaled: [Scaled] = []
        let start = original.edge <= copy.edge ? original : copy
        for node in preset.nodes {
            let upstream = node.from.first
            var fullSize = upstream.flatMap { full[$0] } ?? original
            var copySize = upstream.flatMap { small[$0] } ?? start
            if let box = resizeBox(node) {
                let made = resize(fullSize, copySize, box)
                fullSize = made.full
                copySize = made.copy
                if made.shrink < 0.999, let width = box.width, let height = box.height {
                    scaled.append(Scaled(node: node.id, key: "width", from: String(width), to: String(max(1, Int((Double(width) * made.shrink).rounded())))))
                    scaled.append(Scaled(node: node.id, key: "height", from: String(height), to: String(max(1, Int((Double(height) * made.shrink).rounded())))))
                }
            }
            full[node.id] = fullSize
            small[node.id] = copySize
            let factor = copySize.edge / fullSize.edge
            guard factor < 0.999 else { continue }
            for spec in node.op.parameters where spec.measuresPixels {
                guard let value = node.parameters[spec.name], spec.unusedWith.map({ node.parameters[$0] == nil }) ?? true else { continue }
                switch (value, spec.type) {
                case (.int(let n), .int(let range)):
                    let to = min(range.upperBound, max(range.lowerBound, Int((Double(n) * factor).rounded())))
                    if to != n { scaled.append(Scaled(node: node.id, key: spec.name, from: String(n), to: String(to))) }
                case (.double(let d), .double(let range)):
                    let to = min(range.upperBound, max(range.lowerBound, d * factor))
                    if to != d { scaled.append(Scaled(node: node.id, key: spec.name, from: String(d), to: String((to * 1000).rounded() / 1000))) }
                default:
                    break
                }
            }
        }
        return scaled
    }

    /// What a resize asks for, as its op declares it.
    typealias Box = ResizeRequest

    private static func resizeBox(_ node: NodeSpec) -> Box? {
        node.op.resizeRequest?(node.parameters)
    }

    /// The sizes a resize makes of the file's and the copy's images, and by how much a fixed
    /// box must shrink for the copy (1: not at all).
    private static func resize(_ full: Size, _ copy: Size, _ box: Box) -> (full: Size, copy: Size, shrink: Double) {
        if let scale = box.scale { return (full.scaled(scale), copy.scaled(scale), 1) }
        let w = box.width.map(Double.init), h = box.height.map(Double.init)
        if box.framed, let w, let h {
            // Smaller than the box and not to be enlarged: not framed by the box; left as it is.
            let cover = 1 / FitGeometry.factor(width: full.width, height: full.height, boxWidth: w, boxHeight: h, covering: true)
            guard cover <= 1 || box.upscale else { return (full, copy, 1) }
            // The copy is `ratio` of the file's input: the same framing needs the box times `shrink`.
            let ratio = copy.edge / full.edge
            let shrink = min(1, ratio / cover)
            let fileBox = Size(width: w, height: h)
            return (fileBox, fileBox.scaled(shrink), shrink)
        }
        // Contain: inside the box, never enlarged unless asked.
        func inside(_ image: Size) -> Size {
            let factor = 1 / FitGeometry.factor(width: image.width, height: image.height, boxWidth: w, boxHeight: h)
            return image.scaled(box.upscale ? factor : min(factor, 1))
        }
        return (inside(full), inside(copy), 1)
    }
}
