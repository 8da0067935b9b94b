import Foundation
import WorkbenchCore

/// Values changed on the page and not saved: checked by the preset's own validator, previewed
/// on the cards on screen, written into the file by Save, forgotten by Revert.
extension LiveSession {
    /// What the page's Save and Revert buttons show.
    struct DraftState: Encodable {
        let changes: Int
        let note: String?
    }

    /// The controls of the preset's nodes, as JSON (`NodeControls`).
    func controls() -> String {
        guard let preset else { return "[]" }
        return NodeControls.json(Controls.of(preset, draft: draft))
    }

    /// Sets `node`'s `key` to `json` on the page (not in the file): checked by the preset's own
    /// validator, then previewed on the cards on screen. Returns the validator's message when
    /// the value is refused.
    func setParameter(node: String, key: String, json: String) async -> String? {
        guard let preset else { return "The preset has errors; fix them in the editor first." }
        guard Controls.offers(preset, node: node, key: key) else {
            if let copy = preset.nodes.first(where: { $0.id == node })?.copy {
                return "\"\(node)\" is a copy of \"\(copy.declaredID)\" (\(copy.label)); its \"\(key)\" is the same in every copy: change it on \"\(copy.declaredID)\"."
            }
            if let copy = preset.nodes.first(where: { $0.copy?.declaredID == node })?.copy, let variable = copy.variableParameters[key] {
                return "\"\(key)\" of \"\(node)\" is written as {\(variable)}, one value per copy: change it for one value of \(variable), on a copy such as \"\(preset.nodes.first { $0.copy?.declaredID == node }?.id ?? node)\"."
            }
            return "\"\(node)\" has no parameter \"\(key)\" the page can set."
        }
        // One field of a block of options: the change is to the whole block.
        var (key, json) = (key, json)
        if key.contains("."), let change = Controls.blockChange(preset, node: node, key: key, json: json, draft: draft) { (key, json) = change }
        guard let override = PresetOverride("\(node).\(key)=\(json)") else { return "Not a value: \(json)" }
        let candidate = draft.filter { !($0.node == node && $0.key == key) } + [override]
        let tuned: Preset
        do {
            tuned = try PresetLoader(registry: settings.registry()).load(file: settings.presetPath,
                                                                         overrides: Controls.overrides(candidate, in: preset))
        } catch {
            // The validator's words, without the command-line framing of an override.
            if case .invalidPreset(let diagnostics) = error {
                return diagnostics.filter { $0.severity == .error }.map { ($0.path.isEmpty ? "" : $0.path + ": ") + $0.message }
                    .joined(separator: "\n")
            }
            return "\(error)"
        }
        // The page previews through overrides, but Save writes a value of a repetition into its
        // `foreach` list: the file it would write must pass the validator as well.
        if let refusal = SavedPreset.refusal(of: candidate, file: settings.presetPath, preset: preset, registry: settings.registry()) {
            return refusal
        }
        draft = candidate
        board.streams.send("draft", DraftState(changes: draft.count, note: nil))
        let board = self.board, registry = settings.registry, path = settings.presetPath, draft = Controls.overrides(self.draft, in: preset)
        // What the change touches: the nodes it sets, and copies it renamed (a foreach value).
        let known = Set(preset.nodes.map(\.id))
        let changed = Set(self.draft.map(\.node)).union(tuned.nodes.map(\.id).filter { !known.contains($0) })
        await previews.start(tuned, items: items, indices: visible, changed: changed, variant: { scaled in
            // The page's values, then the pixel sizes scaled to the copies.
            let sizes = scaled.compactMap { size -> PresetOverride? in
                var override = PresetOverride("\(size.node).\(size.key)=\(size.to)")
                override?.changesForeachList = false
                return override
            }
            // The draft was checked when its change was accepted; a preset that no longer loads (its
            // file edited meanwhile) shows no new previews, and the page's next change says why.
            return try? PresetLoader(registry: registry()).load(file: path, overrides: draft + sizes)
        }, scaled: { scaled in
            board.streams.send("scaled", scaled)
        }, ready: { index, generation in
            board.streams.send("preview", ["index": index, "generation": generation])
        })
        return nil
    }

    /// Writes the page's changes into the preset file, each value's bytes and nothing else;
    /// the file watcher then reads it again and the full-size files are made as usual.
    func save() -> String? {
        guard !draft.isEmpty else { return nil }
        do {
            let text = try SavedPreset.text(with: draft, file: settings.presetPath, preset: preset)
            let writer = try AtomicFileWriter(destination: settings.presetPath)
            writer.write(Data(text))
            try writer.commit()
        } catch {
            return "Not saved: \(error)"
        }
        draft = []
        board.streams.send("draft", DraftState(changes: 0, note: nil))
        return nil
    }

    /// Unsaved changes, preview runs started, the newest preview generation, the preview size,
    /// and the pixel sizes the newest preview scaled.
    struct DraftCounts: Encodable {
        let changes: Int
        let previewRuns: Int
        /// Bodies the newest finished preview ran (kept results are taken, not run), and its generation.
        let previewNodesRun: Int
        let previewFinished: Int
        let generation: Int
        let previewSize: Int
        let scaled: [PreviewScale.Scaled]
    }

    func draftCounts() async -> DraftCounts {
        DraftCounts(changes: draft.count, previewRuns: await previews.runsStarted,
                    previewNodesRun: await previews.lastNodesRun, previewFinished: await previews.finished, generation: await previews.generation,
                    previewSize: settings.previewSize, scaled: await previews.lastScaled)
    }

    /// Forgets the page's changes; the cards show the saved preset's files again.
    func revert() async {
        draft = []
        await previews.reset()
        board.streams.send("draft", DraftState(changes: 0, note: nil))
    }
}
