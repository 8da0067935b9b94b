import Glibc

/// A folder's entries read straight from the directory with `readdir`: a walk over a million
/// files never builds FileManager's arrays or URLs.
enum FolderEntries {
    /// Calls `body` with the name and `d_type` of every entry but `.` and `..`; false when the
    /// folder cannot be opened.
    @discardableResult
    static func forEach(in folder: String, _ body: (_ name: String, _ type: UInt8) throws -> Void) rethrows -> Bool {
        guard let directory = opendir(folder) else { return false }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let (name, type) = fields(of: UnsafeRawPointer(entry))
            guard name != ".", name != ".." else { continue }
            try body(name, type)
        }
        return true
    }

    /// The name and type of the `dirent` record at `record`. The kernel's record is only as long
    /// as its name: copying `pointee` (or its 256-byte `d_name`) reads past it, and past the end
    /// of the mapping when the record is the last before an unmapped page — a crash in 1 run of
    /// many (the suite's). The fields are read where they lie instead.
    static func fields(of record: UnsafeRawPointer) -> (name: String, type: UInt8) {
        (String(cString: (record + nameOffset).assumingMemoryBound(to: CChar.self)),
         record.load(fromByteOffset: typeOffset, as: UInt8.self))
    }

    private static let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name) ?? 19
    private static let typeOffset = MemoryLayout<dirent>.offset(of: \dirent.d_type) ?? 18
}
