import Foundation
import WorkbenchCore

/// `pictures`: the run's index of every photo's `picture` JSON, one object keyed by item (its
/// folder and name), for a static-site generator to read once (`srcset.json`).
struct PictureIndexStage: Stage {
    struct Parameters: OpParameters {
        var entries: ParameterValue?

        static let bindings: [ParameterBinding<Self>] = [
            .value("in", \.entries, "Every item's picture JSON: a fan-in such as \"@meta[*]\" of a picture with \"as\": \"json\".",
                   type: .fanIn(.bytes), .init(required: true)),
        ]
    }

    static let definition = OpDefinition(OpSpec(
        name: "pictures",
        summary: "The run's index of pictures: every item's picture JSON (\"in\": \"@meta[*]\") in one object keyed by the item's folder and name, in input order — the srcset.json a static-site generator reads. Give it \"scope\": \"run\".",
        input: nil, output: .bytes, defaultQueue: "cpu", execution: .cpu,
        parameters: Parameters.specs)) { _ in PictureIndexStage() }

    func run(_ inputs: StageInputs, context: StageContext) throws -> Payload {
        var members: [String] = []
        var seen = Set<String>()
        for payload in inputs.references("in") {
            guard case .bytes(let bytes) = payload,
                  let entry = try? JSONSerialization.jsonObject(with: bytes.data) as? [String: Any],
                  let key = entry["item"] as? String else {
                throw WorkbenchError.unexpectedInput(node: context.nodeID, expected: "the JSON of a picture with \"as\": \"json\" for \"in\"")
            }
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
