import Foundation
import WorkbenchCore

/// A preset's plan in words (`workbench explain`): what each node reads after planning, which
/// nodes decode and shrink in one step, which results are computed once and kept for several
/// readers, and how many times each kind of work is done per item.
public struct PlanExplanation {
    public let preset: Preset

    public init(_ preset: Preset) { self.preset = preset }

    /// One node's line: what it is, what it reads, what the plan decided.
    public struct Step: Sendable {
        public let id: String
        public let op: String
        public let reads: [String]
        public let notes: [String]
    }

    public var steps: [Step] {
        preset.nodes.map { node in
            var notes: [String] = []
            let plan = node.plan
            if let larger = plan.cascadedFrom, let written = plan.writtenFrom {
                notes.append("made from \(larger), \(Self.factor(plan.cascadeFactor))× its size, not from \(written) as written (libvips' rule: a factor of 2 or more left for the last resize)")
            }
            notes += node.stage.planNotes
            if let resize = plan.fusedInto, node.stage.planNotes.isEmpty {
                notes.append("its pixels are decoded by \(resize), which decodes and shrinks in one step from the bytes (shrink-on-load)")
                if let refusal = plan.directRefusal { notes.append("through libvips, not the direct path: \(refusal)") }
            }
            if let box = node.op.fitBox?(node.parameters), node.scope == .item {
                let fused = preset.nodes.contains { $0.plan.fusedInto == node.id }
                let leaves = box.headroom == 2 ? "twice that" : "\(Self.factor(box.headroom))× that"
                notes.append("fits \(box.description)" + (fused ? ", decoding the file at the smallest scale that leaves \(leaves)" : ""))
                if plan.readers > 1 { notes.append("computed once an item and kept in memory for its \(plan.readers) readers") }
                if !plan.smallerCopies.isEmpty {
                    let boxes = plan.smallerCopies.map { "\($0.id), \($0.box.description)" }.joined(separator: "; ")
                    notes.append("not encoded or written for an image that fits a smaller copy's box (\(boxes)): it would come out the same (\"repeats\": \"make\" makes it anyway)")
                }
            } else if plan.readers > 1, node.op.output == .image {
                notes.append("read by \(plan.readers) nodes")
            }
            if node.scope == .run { notes.append("once for the whole run") }
            return Step(id: node.id, op: node.op.name, reads: node.inputs.map(\.node), notes: notes)
        }
    }

    /// How many nodes of each op run per item, most first: `decode ×1`, `encode ×6` …
    public var perItem: [(op: String, count: Int)] {
        var counts: [String: Int] = [:]
        for node in preset.nodes where node.scope == .item { counts[node.op.name, default: 0] += 1 }
        return counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { ($0.key, $0.value) }
    }

    /// Resizes per item, and how many of them read the full decoded image.
    public var resizes: (all: Int, fromFullImage: Int) {
        let shrinking = Set(preset.nodes.filter(\.op.shrinksOnLoad).map(\.id))
        let resizes = preset.nodes.filter { $0.scope == .item && $0.op.fitBox != nil }
        return (resizes.count, resizes.filter { $0.from.contains(where: shrinking.contains) }.count)
    }

    public var lines: [String] {
        let width = min(36, steps.map { $0.id.count + $0.op.count + 3 }.max() ?? 0)
        var lines = ["Plan of \(preset.name ?? (preset.file as NSString).lastPathComponent): \(preset.nodes.count) nodes"]
        for step in steps {
            let head = "\(step.id) (\(step.op))"
            let padded = head.count >= width ? head : head + String(repeating: " ", count: width - head.count)
            let reads = step.reads.isEmpty ? "reads the item" : "reads " + step.reads.joined(separator: ", ")
            lines.append("  \(padded)  \(reads)")
            for note in step.notes { lines.append("  \(String(repeating: " ", count: width))    \(note)") }
        }
        let counts = perItem.map { "\($0.op) ×\($0.count)" }.joined(separator: ", ")
        let sizes = resizes
        lines.append("Per item: \(counts)." + (sizes.all > 1 ? " \(sizes.fromFullImage) of the \(sizes.all) resizes read the full image." : ""))
        return lines
    }

    /// The same as a JSON object (`workbench explain --json`), with `file` lines when given.
    public func jsonObject(file: [String] = []) -> [String: Any] {
        var object: [String: Any] = [
            "preset": preset.name ?? preset.file,
            "steps": steps.map { ["id": $0.id, "op": $0.op, "reads": $0.reads, "notes": $0.notes] as [String: Any] },
            "perItem": Dictionary(perItem.map { ($0.op, $0.count) }, uniquingKeysWith: +),
        ]
        if !file.isEmpty { object["file"] = file }
        return object
    }

    static func factor(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.2f", value)
    }
}
