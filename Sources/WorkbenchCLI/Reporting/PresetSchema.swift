import Foundation
import WorkbenchCore

/// A JSON Schema (draft 2020-12) of presets for this build's ops, so editors can complete and
/// check presets as they are typed. `workbench schema` prints it; `Presets/schema/` ships it.
/// Validation proper stays with `workbench validate` (edges, cycles, templates, JSON paths).
struct PresetSchema {
    let registry: OpRegistry

    func json() throws -> String {
        let data = try JSONSerialization.data(withJSONObject: document(), options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    private func document() -> [String: Any] {
        let string: [String: Any] = ["type": "string"]
        let inputs: [String: Any] = ["oneOf": [
            ["type": "array", "items": string, "description": "URLs or paths, in order."],
            object(["glob": string], required: ["glob"], "A glob pattern relative to the preset's folder: *, ?, [...], {a,b}, ** for any folders; wildcard parts match either case."),
            object(["file": string], required: ["file"], "A text file with one URL or path per line, read as needed."),
            object(["map": ["type": "object", "additionalProperties": string]], required: ["map"], "Item name → URL or path."),
            object(["s3": ["type": "string", "pattern": "^[sS]3://"], "glob": string], required: ["s3"],
                   "The objects under an s3://bucket/prefix/, those whose keys below the prefix match the glob when given, listed as the run goes."),
        ]]
        let bucket = object([
            "endpoint": ["type": "string", "pattern": "^[hH][tT][tT][pP][sS]?://"],
            "region": string,
            "pathStyle": ["type": "boolean"],
        ], required: [], "Where s3:// inputs and outputs are reached: a custom endpoint (MinIO, Ceph, R2, GCS), the region, path-style addressing. Credentials come from the environment or ~/.aws.")
        let queue = object([
            "concurrency": ["oneOf": [["type": "integer", "minimum": 1], ["const": "auto"]]],
            "qos": ["enum": QoS.allCases.map(\.rawValue)],
        ], required: [], "A queue: how many of its nodes run at once, and their quality of service.")
        return [
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://filterworkbench.invalid/preset.schema.json",
            "title": "FilterWorkbench preset",
            "type": "object",
            "required": ["version"],
            "additionalProperties": false,
            "properties": [
                "$schema": string, "version": ["const": 1], "name": string, "description": string,
                "extends": ["type": "string", "description": "A preset this one builds on: its nodes changed by id, new ones added."],
                "include": ["oneOf": [string, ["type": "array", "items": string]], "description": "Files of filters ({\"filters\": {…}}) this preset uses."],
                "filters": ["type": "object", "description": "This preset's own filters: named sub-graphs with declared parameters, used as ops.",
                            "additionalProperties": ["type": "object", "required": ["graph"], "additionalProperties": false,
                                                     "properties": ["summary": string, "parameters": ["type": "array"],
                                                                    "graph": ["type": "array", "minItems": 1, "items": ["$ref": "#/$defs/node"]]]]],
                "inputs": inputs, "output": string, "s3": bucket,
                "queues": ["type": "object", "additionalProperties": queue],
                "graph": ["type": "array", "minItems": 1, "items": ["$ref": "#/$defs/node"]],
            ],
            "$defs": ["node": node()],
        ]
    }

    private func node() -> [String: Any] {
        let specs = registry.specs
        let common: [String: Any] = [
            "id": ["type": "string", "pattern": "^[^@\\[]+$"],
            "op": ["enum": specs.map(\.name)],
            "from": ["oneOf": [["type": "string"], ["type": "array", "items": ["type": "string"]]]],
            "queue": ["type": "string"],
            "scope": ["enum": ["item", "run"]],
            "timeout": ["type": "number", "exclusiveMinimum": 0],
            "retries": ["type": "integer", "minimum": 0, "maximum": 20],
            "retryDelay": ["type": "number", "minimum": 0],
            "foreach": ["type": "object", "description": "Repeats the node (and what is downstream of it) over these values, e.g. {\"w\": [480, 960]}; \"{w}\" in its strings becomes each value.",
                        "additionalProperties": ["type": "array", "minItems": 1,
                                                 "items": ["type": ["string", "number", "boolean"]]]],
        ]
        // A value written as "{w}": a repetition's variable, replaced before validation.
        let variable: [String: Any] = ["type": "string", "pattern": "^\\{[A-Za-z][A-Za-z0-9_]*\\}$"]
        let perOp: [[String: Any]] = specs.map { spec in
            var properties: [String: Any] = [:]
            for parameter in spec.parameters {
                var schema: [String: Any] = ["anyOf": [parameter.type.jsonSchema as [String: Any], variable]]
                schema["description"] = parameter.summary
                if parameter.isDeprecated { schema["deprecated"] = true }
                for name in [parameter.name] + parameter.aliases { properties[name] = schema }
            }
            return [
                "if": ["properties": ["op": ["const": spec.name]], "required": ["op"]],
                "then": ["properties": properties, "required": spec.parameters.filter(\.isRequired).map(\.name)],
            ]
        }
        // No "op" required: a node of a preset that `extends` another may change a base node by id alone.
        return ["type": "object", "properties": common, "allOf": perOp, "unevaluatedProperties": false]
    }

    private func object(_ properties: [String: Any], required: [String], _ description: String) -> [String: Any] {
        ["type": "object", "properties": properties, "required": required, "additionalProperties": false, "description": description]
    }
}
