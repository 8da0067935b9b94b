import WorkbenchCore

/// Parameters measured in pixels (a blur's sigma, a crop's box, a watermark's margin), scaled
/// from the full-size image to the preview copy, so a preview looks as the file will at the
/// size it is shown. Each node's scale follows its first input: decoded, the copy is `copy`
/// pixels on its longest side where the original is `original`; after a resize to T pixels the
/// file is T and the copy min(T, what it was).
enum PreviewScale {
    /// One scaled value, for the page's note.
    struct Scaled: Sendable, Encodable {
        let node: String
        let key: String
        let from: String
        let to: String
    }

    /// The overrides that scale `preset`'s pixel parameters for a copy of an original.
    static func overrides(_ preset: Preset, copy: Int, original: Int) -> [Scaled] {
        guard copy > 0, original > 0 else { return [] }
        var full: [String: Double] = [:], small: [String: Double] = [:]
        var scaled: [Scaled] = []
        for node in preset.nodes {
            let upstream = node.from.first
            var fullEdge = upstream.flatMap { full[$0] } ?? Double(original)
            var copyEdge = upstream.flatMap { small[$0] } ?? Double(min(copy, original))
            if let target = resizeTarget(node) {
                fullEdge = target
                copyEdge = min(target, copyEdge)
            }
            full[node.id] = fullEdge
            small[node.id] = copyEdge
            let factor = copyEdge / fullEdge
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

    /// The longest side a resize node makes, when it says.
    private static func resizeTarget(_ node: NodeSpec) -> Double? {
        guard node.op.name == "thumbnail" || node.op.name == "resize" else { return nil }
        let sides = ["width", "height", "size"].compactMap { name -> Double? in
            switch node.parameters[name] {
            case .int(let n)?: return Double(n)
            case .double(let d)?: return d
            default: return nil
            }
        }
        return sides.max()
    }
}
