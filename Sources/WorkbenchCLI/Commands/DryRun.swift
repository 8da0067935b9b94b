import Foundation
import WorkbenchCore

/// `run --dry-run`: every item's output paths, and the paths two writes would both claim,
/// without reading an input or writing anything.
enum DryRun {
    /// Prints the plan; returns false when writes collide.
    static func show(_ preset: Preset, items: ItemSource, root: String) -> Bool {
        let writes = preset.nodes.filter { $0.op.name == "write" }
        var claimed: [String: String] = [:]  // path → who first
        var collisions: [String] = []
        var count = 0
        Terminal.out("Dry run: nothing is read or written. Output root: \(root)")
        func claim(_ path: String, by who: String) {
            if let first = claimed[path] {
                collisions.append("\(path): \(who) and \(first)")
            } else {
                claimed[path] = who
            }
        }
        let iterator = items.makeIterator()
        while let item = iterator.next() {
            count += 1
            let paths = writes.filter { $0.scope == .item }.compactMap { node -> String? in
                // Validation rendered every path template already; one that cannot render here has no
                // path to list.
                guard let template = node.parameters.string("path"), let rendered = try? PathTemplate(template).render(for: item) else { return nil }
                claim(rendered, by: "item \(item.label) (node \(node.id))")
                return rendered
            }
            Terminal.out("\(item.name)  \(item.source)  →  " + (paths.isEmpty ? "no file" : paths.joined(separator: ", ")))
        }
        for node in writes where node.scope == .run {
            // As above: validated templates; nothing to list for one that cannot render.
            guard let template = node.parameters.string("path"), let rendered = try? PathTemplate(template).render(for: .run) else { continue }
            claim(rendered, by: "run-scope node \(node.id)")
            Terminal.out("run scope (\(node.id))  →  \(rendered)")
        }
        Terminal.out("\(count) item\(count == 1 ? "" : "s"), \(claimed.count) file\(claimed.count == 1 ? "" : "s")"
                     + (collisions.isEmpty ? "; no collisions." : "; \(collisions.count) collision\(collisions.count == 1 ? "" : "s"): add {ext}, {dir}, {index} or {hash} to the path template, or remove an input."))
        // After the summary line, which names them: with both streams on one pipe, a line
        // between the listing and the summary read as part of the listing.
        for collision in collisions { Terminal.error("collision: \(collision)") }
        return collisions.isEmpty
    }
}
