import WorkbenchCore

/// The ops this module provides: downloading an item over HTTP(S).
public enum NetOps {
    public static let all: [OpDefinition] = [DownloadStage.definition]
}
