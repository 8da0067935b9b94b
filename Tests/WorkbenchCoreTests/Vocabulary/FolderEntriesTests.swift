import Foundation
import Glibc
import Testing
@testable import WorkbenchCore

@Suite struct FolderEntriesTests {
    /// The crash CI saw: a folder of ~1,400 files fills glibc's 32 KB readdir buffer, and when that
    /// buffer is the last thing before an unmapped page, reading a record as a whole `dirent`
    /// (280 bytes) runs off the mapping. Here the record is placed so: the old reading crashes the
    /// test process, the new one reads 24 bytes.
    @Test func aRecordEndingAtAnUnmappedPageIsReadWithinItself() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let mapping = mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        let base = try #require(mapping == MAP_FAILED ? nil : mapping)
        defer { munmap(base, 2 * page) }
        #expect(mprotect(base + page, page, PROT_NONE) == 0)

        // d_ino 8, d_off 8, d_reclen 2, d_type 1, then the name: 24 bytes for "1354".
        let recordLength = 24
        let record = base + page - recordLength
        record.storeBytes(of: UInt16(recordLength), toByteOffset: 16, as: UInt16.self)
        record.storeBytes(of: UInt8(DT_REG), toByteOffset: 18, as: UInt8.self)
        for (offset, byte) in Array("1354\0".utf8).enumerated() {
            record.storeBytes(of: byte, toByteOffset: 19 + offset, as: UInt8.self)
        }

        let fields = FolderEntries.fields(of: UnsafeRawPointer(record))
        #expect(fields.name == "1354")
        #expect(fields.type == UInt8(DT_REG))
    }

    @Test func aFolderListsEveryNameButTheDotsWithItsType() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("entries-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder + "/sub", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let names = (0..<2_000).map { "\($0)" } + [".hidden", "a name with spaces.jpg", "é.png"]
        for name in names { #expect(FileManager.default.createFile(atPath: folder + "/" + name, contents: nil)) }

        var seen: [String: UInt8] = [:]
        #expect(FolderEntries.forEach(in: folder) { name, type in seen[name] = type })
        #expect(Set(seen.keys) == Set(names + ["sub"]))
        #expect(seen["sub"] == UInt8(DT_DIR))
        #expect(seen["é.png"] == UInt8(DT_REG))
        #expect(!FolderEntries.forEach(in: folder + "/missing") { _, _ in })
    }
}
