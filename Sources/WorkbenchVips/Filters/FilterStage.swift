import WorkbenchCore

/// A friendly filter: a few well-named parameters over one or more libvips operations.
///
/// Each filter is declared by its `OpSpec` and a function from its parameters to the image
/// transformation; the stage around them feeds the image in and the references it names.
struct FilterStage: Stage {
    typealias Transform = @Sendable (VipsImage, StageInputs, StageContext) throws -> VipsImage

    let transform: Transform

    func run(_ inputs: StageInputs, context: StageContext) throws -> Payload {
        .image(try transform(inputs.image(context), inputs, context))
    }

    /// An op named `name` with the parameters `Parameters` declares, made by `make` from their
    /// fields; `check` says what is wrong with a combination of them.
    static func define<Parameters: OpParameters>(_ name: String, _ summary: String, _ parameters: Parameters.Type, streams: Bool = true,
                                                 check: (@Sendable (Parameters) -> String?)? = nil,
                                                 _ make: @escaping @Sendable (Parameters) -> Transform) -> OpDefinition {
        define(name, summary, Parameters.specs, streams: streams, check: check.map { check in { @Sendable values in check(Parameters(values)) } }) { make(Parameters($0)) }
    }

    /// An op named `name` with these declarations, made by `make` from the validated values:
    /// for parameters that are data rather than fields (a plugin's manifest declares them).
    static func define(_ name: String, _ summary: String, _ parameters: [ParameterSpec], streams: Bool = true,
                       check: (@Sendable (ParameterValues) -> String?)? = nil,
                       _ make: @escaping @Sendable (ParameterValues) -> Transform) -> OpDefinition {
        OpDefinition(OpSpec(name: name, summary: summary, input: .image, output: .image, defaultQueue: "cpu",
                            execution: .cpu, parameters: parameters, readsSequentially: streams, check: check)) { values in
            FilterStage(transform: make(values))
        }
    }

    /// Calls a libvips operation on `image` with arguments by name.
    /// Give `cancellation` (the node's) to operations that evaluate pixels as they are built.
    static func vips(_ nick: String, _ image: VipsImage?, _ arguments: [String: VipsArgumentValue] = [:],
                     cancellation: CancellationToken? = nil) throws -> VipsImage {
        try VipsOperationCall.image(nick, image, arguments, cancellation: cancellation)
    }

    /// `value` for each colour band, and `alphaValue` for an alpha band if there is one.
    static func perBand(_ image: VipsImage, _ value: Double, alpha alphaValue: Double) -> [Double] {
        let colour = image.hasAlpha ? image.bands - 1 : image.bands
        return Array(repeating: value, count: colour) + (image.hasAlpha ? [alphaValue] : [])
    }

    /// Where a box of `inner` size sits inside `outer` at `gravity`, `margin` pixels from the edges.
    static func position(_ gravity: Gravity, outer: (Int, Int), inner: (Int, Int), margin: Int = 0) -> (x: Int, y: Int) {
        let gravity = gravity.rawValue
        let spareX = outer.0 - inner.0, spareY = outer.1 - inner.1
        let x = gravity.contains("west") ? margin : gravity.contains("east") ? spareX - margin : spareX / 2
        let y = gravity.hasPrefix("north") ? margin : gravity.hasPrefix("south") ? spareY - margin : spareY / 2
        return (x, y)
    }

    /// Where a box sits: a side, a corner, or the centre.
    enum Gravity: String, CaseIterable, Sendable {
        case centre, north, south, east, west
        case northEast = "north-east", northWest = "north-west", southEast = "south-east", southWest = "south-west"
    }
}
