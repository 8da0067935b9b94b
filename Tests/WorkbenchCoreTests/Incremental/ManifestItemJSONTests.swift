import Foundation
import Testing
@testable import WorkbenchCore

/// The hand-written record is exactly what the encoder writes, or is left to it.
@Suite struct ManifestItemJSONTests {
    static func encoded(_ item: ManifestItem) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(item)
    }

    @Test func everyShapeOfRecordIsWrittenAsTheEncoderWritesIt() throws {
        let files = [
            OutputFile(path: "/out/a/b.jpg", node: "save", bytes: 2099, width: 64, height: 40, format: "jpeg", recipe: "9f2c"),
            OutputFile(path: "/out/é 日本/c.webp", node: "w-1920", bytes: 0),
            OutputFile(path: "/out/x.png", node: "n", bytes: Int.max, width: 1, height: nil, format: nil, recipe: "r"),
        ]
        let identities = [
            InputIdentity(), InputIdentity(content: "abc123", size: 7136, modifiedNs: 1_795_683_646_123_456_789),
            InputIdentity(size: -1, etag: "W/etag-1", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT"),
            InputIdentity(modifiedNs: Int64.min),
        ]
        var compared = 0
        for identity in identities {
            for count in 0...files.count {
                for preset in [nil, "presets/look.json"] as [String?] {
                    let item = ManifestItem(input: "https://example.test/a/b?c=d&e=f", preset: preset, identity: identity,
                                            outputs: Array(files.prefix(count)))
                    let ours = try #require(item.plainJSON())
                    #expect(ours == (try Self.encoded(item)), "\(String(decoding: ours, as: UTF8.self))")
                    compared += 1
                }
            }
        }
        #expect(compared == 32)
    }

    @Test func aStringThatNeedsEscapingIsLeftToTheEncoder() throws {
        for odd in ["quote \" in it", "back\\slash", "tab\there", "line\nbreak", "\u{1}"] {
            let item = ManifestItem(input: odd, identity: InputIdentity(), outputs: [])
            #expect(item.plainJSON() == nil)
            // The line is still written, by the encoder.
            let line = try ManifestLine.encode(key: 1, preset: nil, item: item)
            #expect(String(decoding: line, as: UTF8.self).contains(String(decoding: try Self.encoded(item), as: UTF8.self)))
        }
    }

    @Test func aLineCarriesItsHashesAsSixteenHexDigits() throws {
        let removal = try ManifestLine.encode(key: 0xAB, preset: nil, item: nil)
        #expect(String(decoding: removal, as: UTF8.self) == "{\"k\":\"00000000000000ab\",\"s\":\"0000000000000000\",\"p\":[],\"item\":null}\n")
        let item = ManifestItem(input: "a.jpg", preset: "p.json", identity: InputIdentity(),
                                outputs: [OutputFile(path: "/o/a.jpg", node: "w", bytes: 1), OutputFile(path: "/o/b.jpg", node: "w", bytes: 2)])
        let line = try ManifestLine.encode(key: UInt64.max, preset: "p.json", item: item)
        let parsed = try #require(line.dropLast().withUnsafeBytes { ManifestLine.parse($0) })
        #expect(parsed.key == UInt64.max && parsed.preset == ManifestLine.preset("p.json"))
        #expect(parsed.paths == ["/o/a.jpg", "/o/b.jpg"].map(ManifestLine.path))
        #expect(ManifestLine.item(in: line.dropLast()) == item)
    }
}
