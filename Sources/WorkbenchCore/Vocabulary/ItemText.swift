import Foundation

/// Item variables in free text (`"Photo {index}: {name}"`): the item's values as they are (path
/// templates, by contrast, make each value safe as a file name).
enum ItemText {
    static func namesVariables(_ text: String) -> Bool {
        PathTemplate.Variable.allCases.contains { text.contains("{\($0.rawValue)}") }
    }

    static func render(_ text: String, for item: Item) -> String {
        var result = text
        for variable in PathTemplate.Variable.allCases {
            let value: String
            switch variable {
            case .name: value = item.name
            case .stem: value = item.stem
            case .ext: value = item.ext
            case .index: value = String(item.index)
            case .hash: value = item.hash
            case .dir: value = item.directory
            }
            result = result.replacingOccurrences(of: "{\(variable.rawValue)}", with: value)
        }
        return result
    }
}
