import WorkbenchCore

/// `workbench filters --markdown`: the ops reference, `docs/ops.md`, made from the declarations
/// (a test keeps the file current).
extension FilterCatalogue {
    /// Every built-in op (not `vips.*`, not plugins): a table per group, then each op's parameters.
    func markdown() -> String {
        let specs = registry.specs.filter { !$0.name.contains(".") }
        var lines = [
            "# Ops", "",
            "Every op a preset can name, made from the ops' own declarations by `workbench filters --markdown`",
            "(`workbench filters NAME` says the same for one op in a terminal). Every libvips operation is an",
            "op too, `vips.<nickname>` — [libvips operations](presets.md#libvips-operations-vips) — and plugins add",
            "`<plugin>.<filter>` ([plugins](plugins.md)); `workbench filters` lists them all.", "",
        ]
        for (group, title) in Self.groups where group != "libvips" {
            let members = specs.filter { Self.group(of: $0) == group }
            guard !members.isEmpty else { continue }
            lines += ["## \(title)", "", "| op | consumes → produces | queue | what it does |", "|---|---|---|---|"]
            for spec in members {
                lines.append("| [`\(spec.name)`](#\(spec.name.lowercased())) | \(Self.flow(spec)) | \(spec.defaultQueue) | \(Self.cell(spec.summary)) |")
            }
            lines.append("")
        }
        lines += ["## Parameters", ""]
        for spec in specs {
            lines += ["### \(spec.name)", "", "\(Self.cell(spec.summary)) \(Self.flow(spec)), queue `\(spec.defaultQueue)`."
                + (spec.isDeprecated ? " Deprecated: it still works, but may be removed." : ""), ""]
            guard !spec.parameters.isEmpty else {
                lines += ["No parameters.", ""]
                continue
            }
            lines += ["| parameter | takes | default | |", "|---|---|---|---|"]
            for parameter in spec.parameters {
                var name = "`\(parameter.name)`"
                if !parameter.aliases.isEmpty { name += " (or " + parameter.aliases.map { "`\($0)`" }.joined(separator: ", ") + ")" }
                let value = parameter.isRequired ? "required" : parameter.defaultValue.map { "`\($0)`" } ?? ""
                let summary = parameter.summary + (parameter.isDeprecated ? " Deprecated." : "")
                lines.append("| \(name) | \(Self.cell(parameter.type.summary)) | \(value) | \(Self.cell(summary)) |")
            }
            lines.append("")
        }
        return lines.joined(separator: "\n")
    }

    /// Text for one table cell: no line breaks, no column separators.
    private static func cell(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }
}
