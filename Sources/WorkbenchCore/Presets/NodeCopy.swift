/// What makes a node a copy of a node written with `"foreach"` (or downstream of one): the node
/// as written and the values of its copy. `validate`, `graph` and `--set` name the copy by its
/// own id (`resized-480`); a change to the written node (`resized`) changes every copy.
public struct NodeCopy: Sendable, Equatable {
    /// One repetition variable's value for this copy, and where the value is written.
    public struct Value: Sendable, Equatable {
        /// The variable, e.g. `w`.
        public let name: String
        /// Its value, as JSON text, e.g. `480` or `"avif"`.
        public let json: String
        /// The written node whose `foreach` lists the values, and this value's place in the list.
        public let declaredBy: String
        public let index: Int
    }

    /// The id of the node as written (or its op, when it has no id).
    public let declaredID: String
    /// The copy's variables, in the order they repeat.
    public let values: [Value]
    /// Parameters written as exactly one variable (`"width": "{w}"`): parameter → variable.
    /// They differ from copy to copy, so they are changed one copy at a time.
    public let variableParameters: [String: String]

    /// `w = 480, fmt = avif`.
    public var label: String {
        values.map { "\($0.name) = \(Self.text(of: $0.json))" }.joined(separator: ", ")
    }

    /// A value's JSON as it reads in a label: `avif` for `"avif"`.
    public static func text(of json: String) -> String {
        json.hasPrefix("\"") && json.hasSuffix("\"") && json.count >= 2 ? String(json.dropFirst().dropLast()) : json
    }
}
