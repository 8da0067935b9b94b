/// The live workbench's one page: plain HTML, CSS and JavaScript, no build step. Kept in the
/// executable itself (not a resource bundle, which a copied binary would lose); the markup is
/// here, the style in `Page+Style.swift`, the script in `Page+Script.swift`.
enum Page {
    static func html(token: String) -> String {
        template.replacingOccurrences(of: "__TOKEN__", with: token)
    }

    private static let template = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>FilterWorkbench</title>
    <style>
    \#(style)
    </style>
    </head>
    <body>
    <header>
      <h1>FilterWorkbench</h1><span id="preset"></span><span id="summary"></span><span id="queues"></span>
      <div id="errors"></div>
      <details><summary>graph</summary><pre id="graph"></pre></details>
    </header>
    <main id="items"></main>
    <aside id="panel">
      <div id="draft"><button id="save" disabled>Save</button><button id="revert" disabled>Revert</button>
        <button id="undo" disabled title="Ctrl+Z">Undo</button><button id="redo" disabled title="Ctrl+Shift+Z">Redo</button>
        <label><input type="checkbox" id="showSaved"> show saved</label><span id="draftNote"></span></div>
      <div class="meta" id="scaledNote"></div>
      <div class="meta" id="tuneNote">Moving a control previews it on the cards on screen; the files are made when you save.</div>
      <div id="controls"></div>
    </aside>
    <script>
    \#(script)
    </script>
    </body>
    </html>
    """#
}
