/// The live workbench's one page: plain HTML, CSS and JavaScript, no build step.
///
/// Written as ordinary files (`Page/page.html`, `page.css`, `page.js`) that editors, linters and
/// browsers read as what they are, and embedded in the executable when it is built (a resource
/// bundle beside the binary would be lost when the binary is copied). The part made from Swift —
/// the item states, from `ItemState` — goes in at the comment that marks its place.
enum Page {
    static func html(token: String) -> String {
        template.replacingOccurrences(of: "__TOKEN__", with: token)
    }

    /// The page's style, with the selector of working states filled in.
    static let style = text(PackageResources.page_css)
        .replacingOccurrences(of: "/* ItemState.workingSelector */", with: ItemState.workingSelector)

    /// The page's script, led by the item states' table.
    static let script = text(PackageResources.page_js)
        .replacingOccurrences(of: "/* ItemState.script */", with: ItemState.script)

    private static let template = text(PackageResources.page_html)
        .replacingOccurrences(of: "/* page.css */", with: style)
        .replacingOccurrences(of: "/* page.js */", with: script)

    private static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}
