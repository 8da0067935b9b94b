import Foundation
import WorkbenchCore

/// `pictures`: the run's index of every photo's `picture` JSON, one object keyed by item (its
/// folder and name), for a static-site generator to read once (`srcset.json`).
struct PictureIndexStage: Stage {
    struct Parameters: OpParameters {
        var entries: ParameterValue?

        static let bindings: [ParameterBinding<Self>] = [
            .value("in", \.entries, "Every item's picture JSON as written: a fan-in such as \"@meta-save[*]\" of the write after a picture with \"as\": \"json\" (read back from the output folder, so an item whose files are up to date is listed too).",
                   type: .fanIn(.file), .init(required: true)),
        ]
    }

    static let definition = OpDefinition(OpSpec(
        name: "pictures",
        summary: "The run's index of pictures: every item's picture JSON as written (\"in\": \"@meta-save[*]\") in one object keyed by the item's folder and name, in input order — the srcset.json a static-site generator reads. Give it \"scope\": \"run\".",
        input: nil, output: .bytes, defaultQueue: "cpu", execution: .cpu,
        parameters: Parameters.specs)) { _ in PictureIndexStage() }

    func run(_ inputs: StageInputs, context: StageContext) throws -> Payload {
        var members: [String] = []
        var seen = Set<String>()
        for payload in inputs.references("in") {
            if case .file(let file) = payload, file.notMade != nil { continue }
            guard case .file(let file) = payload else {
                throw WorkbenchError.unexpectedInput(node: context.nodeID, expected: "the written JSON of a picture with \"as\": \"json\" for \"in\"")
            }
            let path = (context.output.path as NSString).appendingPathComponent(file.path)
            guard let data = FileManager.default.contents(atPath: path) else {
                throw WorkbenchError.readFailed(path: file.path, reason: "the index reads the pictures' JSON back from the output folder, and \(context.output.location) keeps no copy of it; write the index with a local --out")
            }
            // Not JSON at all, or JSON of something else: either way not a picture's, said below.
            guard let entry = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let key = entry["item"] as? String else {
                throw WorkbenchError.unexpectedInput(node: context.nodeID, expected: "the JSON of a picture with \"as\": \"json\" in \(file.path) (give \"in\" the write after it, e.g. \"@meta-save[*]\")")
            }
            let bytes = Bytes(data, origin: file.path)
            // Two inputs of one name in one folder (a.jpg and a.png): the first is kept, and said.
            guard seen.insert(key).inserted else {
                context.note("\(key) is listed once: two inputs share that name")
                continue
            }
            let text = String(decoding: bytes.data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            members.append("\(ParameterValue.string(key).jsonText): " + text.replacingOccurrences(of: "\n", with: "\n  "))
        }
        let text = members.isEmpty ? "{}\n" : "{\n  " + members.joined(separator: ",\n  ") + "\n}\n"
        return .bytes(Bytes(Data(text.utf8), origin: "run"))
    }
}
