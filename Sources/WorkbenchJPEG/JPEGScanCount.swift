/// How many scans a JPEG has, read from its markers without decoding anything: each scan is a
/// pass over the whole image for every decoder (libjpeg's too), so a file of thousands of small
/// scans costs thousands of passes — the work a decode caps before it starts.
public enum JPEGScanCount {
    /// The start-of-scan markers in `data`, counted up to `limit + 1` at most (enough to tell
    /// whether it passes the limit). A file cut short or damaged counts the scans it has.
    public static func count(in data: UnsafeRawBufferPointer, upTo limit: Int) -> Int {
        var position = 2, scans = 0
        while position + 3 < data.count, scans <= limit {
            // As libjpeg does, stray bytes and fill bytes before a marker are stepped over.
            guard data[position] == JPEGMarker.prefix, data[position + 1] != JPEGMarker.prefix else { position += 1; continue }
            let marker = data[position + 1]
            if marker == JPEGMarker.endOfImage { break }
            if JPEGMarker.restarts.contains(marker) || marker == JPEGMarker.temporary || marker == 0 { position += 2; continue }
            let length = Int(data[position + 2]) << 8 | Int(data[position + 3])
            let end = position + 2 + length
            guard length >= 2, end <= data.count else { break }
            guard marker == JPEGMarker.startOfScan else { position = end; continue }
            scans += 1
            guard let next = JPEGEntropyReader.end(of: data, from: end) else { break }
            position = next
        }
        return scans
    }
}
