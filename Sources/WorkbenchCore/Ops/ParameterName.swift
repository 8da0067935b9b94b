/// The names of one op's parameters, declared once as the cases of an enum: the op's
/// `ParameterSpec`s are made from the cases and its stage reads `p.int(.width)`, so a misspelt
/// name does not compile (a string would read nothing, silently).
///
/// ```swift
/// enum Parameter: String, ParameterName { case width, height, fit }
/// ParameterSpec(Parameter.width, .int(1...10_000_000), "Target width in pixels.")
/// let width = p.int(Parameter.width)
/// ```
public protocol ParameterName: RawRepresentable, CaseIterable, Sendable where RawValue == String {}

extension ParameterSpec {
    /// The declaration of the parameter `name` names.
    public init<Name: ParameterName>(_ name: Name, _ type: ParameterType, required: Bool = false,
                                     default defaultValue: ParameterValue? = nil, passesDefault: Bool = true, aliases: [String] = [],
                                     deprecated: Bool = false, pixels: Bool = false, recipeName: String? = nil, recipeOmitsDefault: Bool = false,
                                     givenNotice: String? = nil, unusedWith: String? = nil, factor: Bool = false, _ summary: String) {
        self.init(name.rawValue, type, required: required, default: defaultValue, passesDefault: passesDefault, aliases: aliases,
                  deprecated: deprecated, pixels: pixels, recipeName: recipeName, recipeOmitsDefault: recipeOmitsDefault,
                  givenNotice: givenNotice, unusedWith: unusedWith, factor: factor, summary)
    }
}

extension OpSpec {
    /// The cases of `names` this op does not declare: empty when every name a stage reads is one
    /// of the op's parameters (the tests check each op that has such names).
    public func undeclared<Name: ParameterName>(_ names: Name.Type) -> [String] {
        Name.allCases.map(\.rawValue).filter { name in !parameters.contains { $0.name == name } }
    }
}
