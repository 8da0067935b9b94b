import Testing
@testable import WorkbenchCore

@Suite struct PathTemplateTests {
    @Test func rendersItemVariables() throws {
        let item = Item(index: 7, name: "Bridge", source: "https://example.org/photos/bridge.large.JPG?size=2")
        #expect(try PathTemplate("out/{name}-{stem}.{ext}#{index}").render(for: item) == "out/Bridge-bridge.large.JPG#7")
        #expect(try PathTemplate("{hash}").render(for: item).count == 12)
    }

    @Test func refusesTraversalAndAbsolutePaths() {
        for text in ["../x.jpg", "a/../../x.jpg", "a/..", "/etc/passwd", "~/x.jpg", "", "dir/", "a\u{0}b.jpg", "x\n.jpg", "\u{7F}.jpg"] {
            #expect(throws: TemplateError.self, "\(text)") { try PathTemplate(text) }
        }
        #expect(throws: TemplateError.self) { try PathTemplate("{name") }
        #expect(throws: TemplateError.self) { try PathTemplate("name}") }
    }

    @Test func valuesCannotAddPathComponents() throws {
        let template = try PathTemplate("{name}.jpg")
        #expect(template.render(for: Item(index: 0, name: "../../etc/passwd", source: "x")) == ".._.._etc_passwd.jpg")
        #expect(try PathTemplate("{name}").render(for: Item(index: 0, name: "..", source: "x")) == "__")
        #expect(template.render(for: Item(index: 0, name: "a\\b\u{0}c", source: "x")) == "a_b_c.jpg")
    }

    @Test func anEmptyFolderLeavesOneSeparatorAndNamesKeepTheirCharacters() throws {
        let template = try PathTemplate("{dir}/x/{dir}/{name}.jpg")
        #expect(template.render(for: Item(index: 0, name: "Straße é", source: "x")) == "x/Straße é.jpg")
        #expect(template.render(for: Item(index: 0, name: "Straße é", source: "x", directory: "a/b")) == "a/b/x/a/b/Straße é.jpg")
        #expect(template.render(for: Item(index: 0, name: "", source: "x")) == "x/_.jpg")
        #expect(template.render(for: Item(index: 0, name: "...", source: "x")) == "x/___.jpg")
        #expect(template.render(for: Item(index: 0, name: "a\u{7F}b\tc", source: "x")) == "x/a_b_c.jpg")
    }

    @Test func itemNamesComeFromPathsAndURLs() {
        #expect(Item(index: 0, source: "/photos/Harbour.jpeg").name == "Harbour")
        #expect(Item(index: 0, source: "https://h.example/a/My%20Photo.png?x=1#f").name == "My Photo")
        #expect(Item(index: 0, source: "https://h.example/").name == "item")
        #expect(Item(index: 0, source: "https://h.example/a/b.webp").ext == "webp")
    }

    /// An object key is a name: "#", "?", "%", "+", spaces and any letter are part of it, as in
    /// a file's name; only the bucket is split off.
    @Test func objectKeysNameItemsByteForByte() {
        for name in ["hash#tag", "what?", "per%20cent", "a b", "plus+sign", "café", "100%"] {
            let item = Item(index: 0, source: "s3://photos/in/\(name).jpg")
            #expect(item.name == name && item.ext == "jpg", "\(name): \(item.name) \(item.ext)")
            #expect(Item(index: 0, source: "S3://photos/\(name).jpg").name == name)
            #expect(Item(index: 0, source: "/local/\(name).jpg").name == name)
        }
    }
}
