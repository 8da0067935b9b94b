import Foundation
import WorkbenchCore

/// `picture`: what a web page needs of one photo's written files — the `<picture>` element
/// (`"as": "html"`) or their list with a ThumbHash placeholder and the dominant colour
/// (`"as": "json"`) — as bytes for a `write`.
///
/// It reads the files every copy of a `write` put in place (`"files": "@save[*]"`): their paths
/// become the URLs, their sizes the `w` descriptors and the `<img>`'s `width` and `height`.
/// The placeholder and the colour come from the smallest file already written, decoded at
/// 100 px at most: no second decode of the photo.
struct PictureStage: Stage {
    struct Parameters: OpParameters {
        enum Form: String, CaseIterable, Sendable { case html, json }
        enum Loading: String, CaseIterable, Sendable { case lazy, eager }
        enum Decoding: String, CaseIterable, Sendable { case async, sync, auto }

        var files: ParameterValue?
        var form = Form.html
        var sizes: String?
        var alt: String?
        var loading = Loading.lazy
        var decoding = Decoding.async
        var baseURL: String?
        var placeholder: ParameterValue?

        static let bindings: [ParameterBinding<Self>] = [
            .value("files", \.files, "The written files of every size and format: \"@save[*]\" reads every copy of the write node \"save\".",
                   type: .references(.file), .init(required: true)),
            .choice("as", \.form, "\"html\": a <picture> with one <source> a format (AVIF, JPEG XL, WebP first) and an <img> of JPEG (else PNG, else what there is); \"json\": every file's URL, format, width, height and bytes, with the placeholder and colour."),
            .string("sizes", \.sizes, "The sizes attribute: how wide the image shows, e.g. \"(min-width: 960px) 50vw, 100vw\" (default \"100vw\")."),
            .string("alt", \.alt, "The <img>'s alternative text (default empty: a decorative image); {name} is the item's name."),
            .choice("loading", \.loading, "The <img>'s loading: \"lazy\" waits until it nears the viewport; \"eager\" for the image above the fold."),
            .choice("decoding", \.decoding, "The <img>'s decoding hint."),
            .string("baseURL", \.baseURL, "Put before every file's path, e.g. \"https://cdn.example.com/photos/\" or \"../img/\"; without it URLs are the paths under the output folder, right for a page written there."),
            .value("placeholder", \.placeholder, "Compute a ThumbHash and the dominant colour from the smallest file (decoded at 100 px): in the JSON by default; in the HTML when true, as the <img>'s background colour.", type: .bool),
        ]
    }

    static let definition = OpDefinition(OpSpec(
        name: "picture",
        summary: "A web page's markup for one photo from its written files (\"files\": \"@save[*]\"): a <picture> with a <source> a format and an <img> with srcset, sizes, width, height, loading and decoding (\"as\": \"html\"), or the files' URLs, formats, sizes and bytes with a ThumbHash and the dominant colour (\"as\": \"json\"). Equal widths are listed once, with their real size.",
        input: nil, output: .bytes, defaultQueue: "cpu", execution: .cpu,
        parameters: Parameters.specs)) { values in PictureStage(Parameters(values)) }

    let parameters: Parameters

    init(_ parameters: Parameters) { self.parameters = parameters }

    /// The JSON carries the placeholder unless told not to; the page only when asked, as it
    /// costs a decode and the markup alone costs next to nothing.
    var placeholder: Bool {
        if case .bool(let asked)? = parameters.placeholder { return asked }
        return parameters.form == .json
    }

    var planNotes: [String] {
        placeholder ? ["placeholder and colour from the smallest file written, decoded at 100 px at most"] : []
    }

    func run(_ inputs: StageInputs, context: StageContext) throws -> Payload {
        let written = inputs.references("files").compactMap { payload -> OutputFile? in
            if case .file(let file) = payload, file.notMade == nil { return file } else { return nil }
        }
        guard !written.isEmpty else { throw WorkbenchError.unexpectedInput(node: context.nodeID, expected: "written files for \"files\"") }
        let files = PictureFile.listed(written, baseURL: parameters.baseURL ?? "")
        guard !files.isEmpty else {
            throw WorkbenchError.unexpectedInput(node: context.nodeID, expected: "written images (the writes after an encode) for \"files\", not \(written.map(\.path).joined(separator: ", "))")
        }
        var made: PicturePlaceholder?
        if placeholder {
            made = PicturePlaceholder.made(from: written, in: context.output.path) { context.note($0) }
        }
        let picture = Picture(item: context.item, files: files, placeholder: made)
        let text: String
        switch parameters.form {
        case .html:
            let alt = (parameters.alt ?? "").replacingOccurrences(of: "{name}", with: context.item.name)
            text = picture.html(sizes: parameters.sizes ?? "100vw", alt: alt, loading: parameters.loading.rawValue,
                                decoding: parameters.decoding.rawValue)
        case .json:
            text = picture.json
        }
        return .bytes(Bytes(Data(text.utf8), origin: context.item.source))
    }
}
