import Foundation
import Testing
@testable import WorkbenchReports

/// The reporters' hand-written JSON lines are what `JSONSerialization` with sorted keys writes.
@Suite struct JSONLineTests {
    @Test func linesAreJSONSerializationsBytes() throws {
        let objects: [[String: Any]] = [
            ["event": "runStarted", "items": NSNull(), "nodesPerItem": 5],
            ["event": "node", "item": "Straße \"quoted\" a\\b/c\n\t\u{1}", "itemIndex": 12, "time": 5.2638e-05,
             "start": 0.25, "end": 1.9123839820000001, "attempt": 1, "ok": true, "no": false],
            ["event": "itemFinished", "outputs": ["a/b.jpg", "c.jpg"], "warnings": [String](),
             "error": ["node": "decode", "message": "VipsJpeg: Premature end of JPEG file"], "seconds": 2.0, "bytes": 0],
            ["ts": 1234567.5, "args": ["disk": 3, "cpu": 0], "ph": "C", "negative": -3, "big": 1e300],
        ]
        for object in objects {
            let ours = try #require(JSONLine.encode(object))
            let theirs = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            #expect(String(decoding: ours, as: UTF8.self) == String(decoding: theirs, as: UTF8.self))
        }
        // A value of another kind is left to JSONSerialization.
        #expect(JSONLine.encode(["date": Date()]) == nil && JSONLine.encode(["nan": Double.nan]) == nil)
    }
}
