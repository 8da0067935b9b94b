import Foundation
import WorkbenchCore

/// The preset file as the page's Save writes it: each change's bytes written where the value
/// stands — a copy's value of its `foreach` variable in the `foreach` list — and whether the
/// result passes the validator, so Save never writes a preset that does not load.
enum SavedPreset {
    /// The bytes of `file` with `changes` written in (`preset`: the file as last loaded, to
    /// tell a copy's own values).
    static func text(with changes: [PresetOverride], file: String, preset: Preset?) throws -> [UInt8] {
        guard let bytes = FileManager.default.contents(atPath: file) else { throw ServeError.unreadablePreset(file) }
        var text = [UInt8](bytes)
        for change in changes {
            if let preset, let value = Controls.repetitionValue(preset, node: change.node, key: change.key) {
                text = try PresetEdit.settingRepetitionValue(value.name, index: value.index, to: change.value, node: value.declaredBy, in: text)
            } else {
                text = try PresetEdit.setting(change.key, to: change.value, node: change.node, in: text)
            }
        }
        return text
    }

    /// Why Save could not write `changes`, in the validator's words, or nil.
    static func refusal(of changes: [PresetOverride], file: String, preset: Preset?, registry: OpRegistry) -> String? {
        do {
            let text = try text(with: changes, file: file, preset: preset)
            _ = try PresetLoader(registry: registry).load(json: text, file: file, baseDirectory: (file as NSString).deletingLastPathComponent)
            return nil
        } catch let error as WorkbenchError {
            guard case .invalidPreset(let diagnostics) = error else { return "Save could not write this value: \(error)" }
            return "Save would write a preset that does not validate: "
                + diagnostics.filter { $0.severity == .error }.map { ($0.path.isEmpty ? "" : $0.path + ": ") + $0.message }.joined(separator: "\n")
        } catch {
            return "Save could not write this value: \(error)"
        }
    }
}
