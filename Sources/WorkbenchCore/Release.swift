/// The release, in one place: `--version`, manifests and run reports, the user agent of
/// downloads, the container image's labels and the install script all take it from here. A
/// release is tagged `v` and this.
public enum Release {
    public static let version = "0.1.0"
}
