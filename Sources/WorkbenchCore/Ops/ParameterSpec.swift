/// One parameter of an op, declared once as data: validation, `workbench filters` and the README
/// all read this declaration.
public struct ParameterSpec: Sendable {
    public let name: String
    public let type: ParameterType
    public let isRequired: Bool
    public let defaultValue: ParameterValue?
    public let summary: String
    /// Other spellings accepted for this parameter (e.g. `quality` for `Q`).
    public let aliases: [String]
    /// Still accepted, with a warning at load.
    public let isDeprecated: Bool
    /// Whether an omitted parameter is given `defaultValue`, or left to the op, which decides
    /// itself (libvips computes some defaults from the image; its declared ones are shown only).
    public let passesDefault: Bool
    /// A length in pixels of the image (a blur's sigma, a crop's box): the live workbench scales
    /// it to the preview copies it runs on.
    public let measuresPixels: Bool
    /// The name recipes give it: its name, or the one it had when it was renamed, so files made
    /// before the rename are still up to date.
    public let recipeName: String
    /// Left out of recipes while it has its default: a parameter added later whose default is
    /// how the op behaved before, so files made before it existed are still up to date.
    public let recipeOmitsDefault: Bool
    /// What validation says, as a warning, when a preset gives this parameter: accepted, but
    /// something else decides (libvips' `strip` beside workbench's `metadata`).
    public let givenNotice: String?
    /// Another parameter that, when given, makes this one unused (a watermark's `scale` beside
    /// its `size`): validation warns when a preset gives both, and previews leave it alone.
    public let unusedWith: String?
    /// A multiplier whose neutral value is 1 (brightness, saturation): halving and doubling are
    /// the same step, so the live page's slider is geometric above 1.
    public let isFactor: Bool

    public init(_ name: String, _ type: ParameterType, required: Bool = false,
                default defaultValue: ParameterValue? = nil, passesDefault: Bool = true, aliases: [String] = [],
                deprecated: Bool = false, pixels: Bool = false, recipeName: String? = nil, recipeOmitsDefault: Bool = false,
                givenNotice: String? = nil, unusedWith: String? = nil, factor: Bool = false, _ summary: String) {
        self.isFactor = factor
        self.givenNotice = givenNotice
        self.unusedWith = unusedWith
        self.recipeName = recipeName ?? name
        self.recipeOmitsDefault = recipeOmitsDefault
        self.passesDefault = passesDefault
        self.measuresPixels = pixels
        self.name = name
        self.type = type
        self.isRequired = required
        self.defaultValue = defaultValue
        self.summary = summary
        self.aliases = aliases
        self.isDeprecated = deprecated
    }
}
