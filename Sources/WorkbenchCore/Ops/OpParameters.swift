/// An op's parameters as the fields of one struct, each declared once: its JSON name, type,
/// documentation and the field it sets; the default is the field's initial value. The op's
/// `ParameterSpec`s are made from the bindings and its stage is made from a value of the struct,
/// so a stage reads `parameters.width` — a misspelt field does not compile, and no default is
/// written twice. (libvips binds an argument to a struct offset with `VIPS_ARG_*`;
/// swift-argument-parser binds an `@Option` to a property.)
///
/// ```swift
/// struct Parameters: OpParameters {
///     var width: Int? = nil
///     var upscale = false
///     static let bindings: [ParameterBinding<Self>] = [
///         .int("width", \.width, 1...10_000_000, "Target width in pixels."),
///         .bool("upscale", \.upscale, "Enlarge images smaller than the target."),
///     ]
/// }
/// ```
public protocol OpParameters: Sendable {
    /// Every field at its default: what the op does when a preset gives nothing.
    init()
    /// Each parameter, bound to the field it sets.
    static var bindings: [ParameterBinding<Self>] { get }
}

extension OpParameters {
    /// The values validation produced (the preset's, with the declared defaults filled in), as
    /// fields; a value missing or of another type leaves the field at its default.
    public init(_ values: ParameterValues) {
        self.init()
        for binding in Self.bindings {
            if let value = values[binding.spec.name] { binding.assign(&self, value) }
        }
    }

    /// The declarations, in order, for the op's `OpSpec`.
    public static var specs: [ParameterSpec] { bindings.map(\.spec) }
}

/// The parameters of an op that takes none.
public struct NoParameters: OpParameters {
    public init() {}
    public static let bindings: [ParameterBinding<Self>] = []
}

/// One parameter of an op bound to a field of its `OpParameters`.
public struct ParameterBinding<Parameters: OpParameters>: Sendable {
    public let spec: ParameterSpec
    let assign: @Sendable (inout Parameters, ParameterValue) -> Void

    /// The declaration's extras, as `ParameterSpec` names them.
    public struct Extras: Sendable {
        var required = false, aliases: [String] = [], recipeName: String? = nil, recipeOmitsDefault = false, pixels = false
        var unusedWith: String? = nil, factor = false

        public init(required: Bool = false, aliases: [String] = [], recipeName: String? = nil, recipeOmitsDefault: Bool = false,
                    pixels: Bool = false, unusedWith: String? = nil, factor: Bool = false) {
            (self.required, self.aliases, self.recipeName, self.recipeOmitsDefault, self.pixels) =
                (required, aliases, recipeName, recipeOmitsDefault, pixels)
            (self.unusedWith, self.factor) = (unusedWith, factor)
        }
    }

    /// The one place a binding is made: `read` turns a validated value into the field's,
    /// `write` the field's default into the declared one (nil: no default).
    static func bind<Value>(_ name: String, _ field: WritableKeyPath<Parameters, Value> & Sendable, _ type: ParameterType,
                            _ extras: Extras, _ summary: String,
                            read: @escaping @Sendable (ParameterValue) -> Value?, write: (Value) -> ParameterValue?) -> Self {
        let defaultValue = extras.required ? nil : write(Parameters()[keyPath: field])
        let spec = ParameterSpec(name, type, required: extras.required, default: defaultValue, aliases: extras.aliases,
                                 pixels: extras.pixels, recipeName: extras.recipeName, recipeOmitsDefault: extras.recipeOmitsDefault,
                                 unusedWith: extras.unusedWith, factor: extras.factor, summary)
        return ParameterBinding(spec: spec) { parameters, value in
            if let converted = read(value) { parameters[keyPath: field] = converted }
        }
    }

    public static func int(_ name: String, _ field: WritableKeyPath<Parameters, Int> & Sendable, _ range: ClosedRange<Int>,
                           _ summary: String, _ extras: Extras = Extras()) -> Self {
        bind(name, field, .int(range), extras, summary, read: \.integer, write: { .int($0) })
    }

    /// An integer with no default: nil when the preset does not give it.
    public static func int(_ name: String, _ field: WritableKeyPath<Parameters, Int?> & Sendable, _ range: ClosedRange<Int>,
                           _ summary: String, _ extras: Extras = Extras()) -> Self {
        bind(name, field, .int(range), extras, summary, read: \.integer, write: { $0.map { .int($0) } })
    }

    public static func double(_ name: String, _ field: WritableKeyPath<Parameters, Double> & Sendable, _ range: ClosedRange<Double>,
                              _ summary: String, _ extras: Extras = Extras()) -> Self {
        bind(name, field, .double(range), extras, summary, read: \.number, write: { .double($0) })
    }

    /// A number with no default: nil when the preset does not give it.
    public static func double(_ name: String, _ field: WritableKeyPath<Parameters, Double?> & Sendable, _ range: ClosedRange<Double>,
                              _ summary: String, _ extras: Extras = Extras()) -> Self {
        bind(name, field, .double(range), extras, summary, read: \.number, write: { $0.map { .double($0) } })
    }

    public static func bool(_ name: String, _ field: WritableKeyPath<Parameters, Bool> & Sendable,
                            _ summary: String, _ extras: Extras = Extras()) -> Self {
        bind(name, field, .bool, extras, summary, read: { if case .bool(let b) = $0 { b } else { nil } }, write: { .bool($0) })
    }

    /// A string with no default: nil when the preset does not give it.
    public static func string(_ name: String, _ field: WritableKeyPath<Parameters, String?> & Sendable, _ summary: String, type: ParameterType = .string,
                              _ extras: Extras = Extras()) -> Self {
        bind(name, field, type, extras, summary, read: { if case .string(let s) = $0 { s } else { nil } }, write: { $0.map { .string($0) } })
    }

    /// One of an enum's cases, by its raw value; the choices are the cases in order, or those
    /// of `among`.
    public static func choice<Choice>(_ name: String, _ field: WritableKeyPath<Parameters, Choice> & Sendable,
                                      among: [Choice]? = nil, _ summary: String, _ extras: Extras = Extras()) -> Self
    where Choice: RawRepresentable & CaseIterable & Sendable, Choice.RawValue == String {
        bind(name, field, .choice((among ?? Array(Choice.allCases)).map(\.rawValue)), extras, summary,
             read: { if case .string(let word) = $0 { Choice(rawValue: word) } else { nil } }, write: { .string($0.rawValue) })
    }

    /// A list of numbers (a `.colour`, `.numbers`), written back as integers where they are whole.
    public static func numbers(_ name: String, _ field: WritableKeyPath<Parameters, [Double]> & Sendable, _ summary: String, type: ParameterType,
                               _ extras: Extras = Extras()) -> Self {
        bind(name, field, type, extras, summary, read: { value in
            guard case .list(let items) = value else { return nil }
            return items.compactMap(\.number)
        }, write: { $0.isEmpty ? nil : .list($0.map(ParameterValue.number)) })
    }

    /// Rows of numbers (`.matrix`); empty by default.
    public static func matrix(_ name: String, _ field: WritableKeyPath<Parameters, [[Double]]> & Sendable, _ summary: String,
                              _ extras: Extras = Extras()) -> Self {
        bind(name, field, .matrix, extras, summary, read: { value in
            guard case .list(let rows) = value else { return nil }
            return rows.map { row in
                guard case .list(let cells) = row else { return [] }
                return cells.compactMap(\.number)
            }
        }, write: { _ in nil })
    }

    /// Names to strings, in the order the preset gave them (`.stringMap`); empty by default.
    public static func stringMap(_ name: String, _ field: WritableKeyPath<Parameters, [(name: String, value: String)]> & Sendable,
                                 _ summary: String, _ extras: Extras = Extras()) -> Self {
        bind(name, field, .stringMap, extras, summary, read: { value in
            guard case .list(let pairs) = value else { return nil }
            return pairs.compactMap { pair in
                guard case .list(let parts) = pair, parts.count == 2, case .string(let name) = parts[0], case .string(let text) = parts[1] else { return nil }
                return (name, text)
            }
        }, write: { _ in nil })
    }

    /// A value kept as validation made it (a list, a set of flags, a word or flags), for the op to read.
    public static func value(_ name: String, _ field: WritableKeyPath<Parameters, ParameterValue> & Sendable, _ summary: String, type: ParameterType,
                             _ extras: Extras = Extras()) -> Self {
        bind(name, field, type, extras, summary, read: { $0 }, write: { $0 })
    }

    /// The same with no default: nil when the preset does not give it.
    public static func value(_ name: String, _ field: WritableKeyPath<Parameters, ParameterValue?> & Sendable, _ summary: String, type: ParameterType,
                             _ extras: Extras = Extras()) -> Self {
        bind(name, field, type, extras, summary, read: { $0 }, write: { $0 })
    }
}

extension ParameterValue {
    /// A number as a value: an integer where it is whole (as a preset writes it).
    static func number(_ value: Double) -> ParameterValue {
        value == value.rounded() && abs(value) < 1e15 ? .int(Int(value)) : .double(value)
    }

    /// An integer, or a number that is one (validation coerces, but plugins' values may not be).
    var integer: Int? {
        switch self {
        case .int(let v): return v
        case .double(let v): return Int(exactly: v)
        default: return nil
        }
    }
}
