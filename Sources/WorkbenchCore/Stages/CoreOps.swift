/// The ops Core itself provides: reading an item's file and writing a result. Each module that
/// provides ops has one such catalogue, named alike: `CoreOps`, `NetOps`, `VipsOps`.
public enum CoreOps {
    public static let all: [OpDefinition] = [ReadStage.definition, WriteStage.definition]
}
