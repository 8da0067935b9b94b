import Foundation

/// What a `ManifestStore` keeps in memory: where each record's latest line is, and which record
/// of another preset lists each output path — tables of 64-bit hashes, about 32 bytes per
/// record (and as much again per file of other presets sharing the folder).
/// Records themselves stay on disk and are read when asked for. Guarded by the store's mutex.
struct ManifestIndex {
    /// A file one preset wrote over another's.
    struct Clash: Sendable, Equatable {
        let path: String
        /// The preset whose file it was.
        let previous: String
    }

    /// The file number standing for records read from manifests before the log.
    private static let legacyFile: UInt64 = 0xFFFFF
    private static let offsetBits: UInt64 = 44

    /// Key hash → file number << 44 | offset of the record's latest line.
    private var keys: [UInt64: UInt64] = [:]
    /// Output path hash → the key hash of the record of another preset that lists it last: the
    /// files whose writing by this preset is a clash to report.
    private var owners: [UInt64: UInt64] = [:]
    /// The hash of the preset this store records for.
    private let ownPreset: UInt64
    private var legacy: [ManifestItem] = []
    /// Records read lately (a rerun reads an item's record, then says it again unchanged).
    private var recent: [UInt64: ManifestItem] = [:]
    private var readers: [Int32]
    private var appendFD: Int32 = -1
    private var appendNumber = -1
    private var appendOffset = 0
    private var createdLog = false
    private(set) var liveCount = 0
    private var staleCount = 0
    private var damaged = 0
    private(set) var writeProblem: String?

    init(files: Int, preset: String?) {
        readers = Array(repeating: -1, count: files)
        ownPreset = ManifestLine.preset(preset)
    }

    // MARK: - Opening

    /// Takes the log's lock, or says another run holds it. A lock this process just let go can
    /// still be held for a moment by a child it is starting (`posix_spawn`'s child shares the
    /// open file until its exec), so a refusal is believed only after half a second.
    static func lock(_ fd: Int32) -> Bool {
        for _ in 0..<50 {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return true }
            guard errno == EWOULDBLOCK else { return false }
            usleep(10_000)
        }
        return false
    }

    /// Opens (or makes) the log this run appends to and locks it; a line cut short by a run
    /// killed mid-write is cut off.
    mutating func openForAppending(_ path: String, number: Int) throws(WorkbenchError) {
        let fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .manifestUnwritable(path: path, reason: String(cString: strerror(errno))) }
        guard Self.lock(fd) else {
            Glibc.close(fd)
            throw .manifestBusy(path: path)
        }
        var info = stat()
        fstat(fd, &info)
        var size = Int(info.st_size)
        if size == 0 {
            createdLog = true
            ManifestLine.header.withUnsafeBytes { _ = Glibc.write(fd, $0.baseAddress, $0.count) }
            size = ManifestLine.header.count
        } else {
            let whole = Self.wholeLinesLength(fd, size: size)
            if whole < size { ftruncate(fd, off_t(whole)) }
            size = whole
        }
        appendFD = fd
        appendNumber = number
        readers[number] = fd
        appendOffset = size
    }

    /// The length of the file up to its last newline.
    private static func wholeLinesLength(_ fd: Int32, size: Int) -> Int {
        var end = size
        var tail = [UInt8](repeating: 0, count: 4096)
        while end > 0 {
            let start = max(0, end - tail.count)
            let read = tail.withUnsafeMutableBytes { pread(fd, $0.baseAddress, end - start, off_t(start)) }
            guard read == end - start else { return size }
            if let last = tail[0..<read].lastIndex(of: UInt8(ascii: "\n")) { return start + last + 1 }
            end = start
        }
        return 0
    }

    mutating func insertLegacy(_ item: ManifestItem) {
        let key = ManifestLine.key(preset: item.preset, input: item.input)
        if keys[key] == nil { liveCount += 1 }
        keys[key] = Self.legacyFile << Self.offsetBits | UInt64(legacy.count)
        legacy.append(item)
        guard ManifestLine.preset(item.preset) != ownPreset else { return }
        for file in item.outputs { owners[ManifestLine.path(file.path)] = key }
    }

    /// Indexes a log; returns what to tell the user if something in it is wrong.
    mutating func load(_ path: String, number: Int) -> String? {
        let fd = readers[number] >= 0 ? readers[number] : open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        readers[number] = fd
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var filled = 0, base = 0, lines = 0, bad = 0, firstBad = 0
        var foreign = false
        reading: while true {
            if filled == chunk.count { chunk.append(contentsOf: repeatElement(0, count: chunk.count)) }
            let count = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + filled, $0.count - filled, off_t(base + filled)) }
            if count <= 0 { break }
            filled += count
            var start = 0
            chunk.withUnsafeBytes { raw in
                guard let origin = raw.baseAddress else { return }
                while start < filled, let newline = memchr(origin + start, Int32(UInt8(ascii: "\n")), filled - start) {
                    let end = origin.distance(to: UnsafeRawPointer(newline))
                    let line = UnsafeRawBufferPointer(rebasing: raw[start..<end])
                    lines += 1
                    if lines == 1 {
                        foreign = !line.elementsEqual(ManifestLine.header.dropLast())
                    } else if let parsed = ManifestLine.parse(line) {
                        apply(parsed, at: UInt64(number) << Self.offsetBits | UInt64(base + start))
                    } else {
                        bad += 1
                        if firstBad == 0 { firstBad = lines }
                    }
                    start = end + 1
                    if foreign { return }
                }
            }
            if foreign { break reading }
            chunk.withUnsafeMutableBytes { raw in
                if let origin = raw.baseAddress, start > 0 { memmove(origin, origin + start, filled - start) }
            }
            base += start
            filled -= start
        }
        if foreign {
            damaged += 1
            return "\"\(path)\" is not a manifest log this workbench knows (its first line differs); the items it lists will be redone."
        }
        damaged += bad
        guard bad > 0 else { return nil }
        return "The manifest \"\(path)\" has \(bad) damaged line\(bad == 1 ? "" : "s") (the first is line \(firstBad)); their items will be redone and the log rewritten."
    }

    private mutating func apply(_ line: ManifestLine, at location: UInt64) {
        let replaced = line.item == nil ? keys.removeValue(forKey: line.key) : keys.updateValue(location, forKey: line.key)
        if line.item == nil {
            staleCount += replaced == nil ? 1 : 2
            if replaced != nil { liveCount -= 1 }
            return
        }
        if replaced != nil { staleCount += 1 } else { liveCount += 1 }
        guard line.preset != ownPreset else { return }
        for path in line.paths { owners[path] = line.key }
    }

    // MARK: - Reading

    func item(_ key: UInt64, input: String, preset: String?) -> ManifestItem? {
        guard let item = source(of: key)?.read() else { return nil }
        return Self.matches(item, input: input, preset: preset) ? item : nil
    }

    /// A hash shared by two keys (about one in 10^10 for a million records) reads as absent.
    static func matches(_ item: ManifestItem, input: String, preset: String?) -> Bool {
        item.input == input && item.preset == preset
    }

    /// Where the record of `key` can be read without holding the store's lock.
    func source(of key: UInt64) -> RecordSource? {
        guard let location = keys[key] else { return nil }
        if let item = recent[key] { return .item(item) }
        let number = location >> Self.offsetBits
        let offset = Int(location & (1 << Self.offsetBits - 1))
        if number == Self.legacyFile { return offset < legacy.count ? .item(legacy[offset]) : nil }
        guard Int(number) < readers.count, readers[Int(number)] >= 0 else { return nil }
        return .line(fd: readers[Int(number)], offset: offset)
    }

    mutating func remember(_ key: UInt64, _ item: ManifestItem) {
        if recent.count >= 4096 { recent.removeAll(keepingCapacity: true) }
        recent[key] = item
    }

    private func read(_ location: UInt64) -> ManifestItem? {
        let number = location >> Self.offsetBits
        let offset = Int(location & (1 << Self.offsetBits - 1))
        if number == Self.legacyFile { return offset < legacy.count ? legacy[offset] : nil }
        return line(at: location).flatMap(ManifestLine.item(in:))
    }

    /// The bytes of the line at `location`, without its newline.
    private func line(at location: UInt64) -> Data? {
        let number = Int(location >> Self.offsetBits)
        guard number < readers.count, readers[number] >= 0 else { return nil }
        return RecordSource.line(fd: readers[number], offset: Int(location & (1 << Self.offsetBits - 1)))
    }

    /// The line a record is written as, from wherever its latest line is.
    private func storedLine(_ key: UInt64, at location: UInt64) -> Data? {
        if location >> Self.offsetBits == Self.legacyFile {
            // ManifestLine.encode fails only for a record JSON cannot hold, which decode never produces.
            return read(location).flatMap { try? ManifestLine.encode(key: key, preset: $0.preset, item: $0) }
        }
        return line(at: location).map { $0 + [UInt8(ascii: "\n")] }
    }

    func allItems() -> [ManifestItem] {
        keys.values.compactMap { read($0) }
    }

    // MARK: - Writing

    /// Puts `item` in (replacing its preset's earlier record of the same input) and takes its
    /// files from whichever record listed them before; returns the files taken from another preset.
    mutating func record(_ item: ManifestItem) -> [Clash] {
        let key = ManifestLine.key(preset: item.preset, input: item.input)
        let old = keys[key]
        // An item found up to date says again what its record says: nothing to write.
        if old != nil, let known = recent[key], known == item {
            recent[key] = nil
            return []
        }
        // As in storedLine: a record from our own types always encodes.
        guard let line = try? ManifestLine.encode(key: key, preset: item.preset, item: item) else { return [] }
        if let old, storedLine(key, at: old) == line { return [] }
        let paths = item.outputs.map { ManifestLine.path($0.path) }
        var clashes: [Clash] = []
        for (file, path) in zip(item.outputs, paths) {
            guard let owner = owners.removeValue(forKey: path), owner != key, let location = keys[owner], var previous = read(location),
                  previous.outputs.contains(where: { $0.path == file.path }) else { continue }
            if let name = previous.preset, name != item.preset { clashes.append(Clash(path: file.path, previous: name)) }
            previous.outputs.removeAll { $0.path == file.path }
            // A record of no preset with nothing left says nothing.
            replace(owner, preset: previous.preset, with: previous.preset == nil && previous.outputs.isEmpty ? nil : previous)
        }
        replace(key, line: line, item: true)
        // A record from before presets were named gives up what this preset now records.
        if item.preset != nil {
            let unnamed = ManifestLine.key(preset: nil, input: item.input)
            if let location = keys[unnamed], let record = read(location), record.preset == nil, record.outputs.isEmpty {
                replace(unnamed, preset: nil, with: nil)
            }
        }
        return clashes
    }

    private mutating func replace(_ key: UInt64, preset: String?, with item: ManifestItem?) {
        // As in storedLine: a record from our own types always encodes.
        guard let line = try? ManifestLine.encode(key: key, preset: preset, item: item) else { return }
        replace(key, line: line, item: item != nil)
    }

    private mutating func replace(_ key: UInt64, line: Data, item: Bool) {
        recent[key] = nil
        let had = keys[key] != nil
        guard let location = append(line) else { return }
        if item {
            keys[key] = location
            if had { staleCount += 1 } else { liveCount += 1 }
        } else {
            keys[key] = nil
            staleCount += had ? 2 : 1
            if had { liveCount -= 1 }
        }
    }

    /// Appends a line to this run's log: one `write` with O_APPEND, so a line is whole or, cut
    /// by a kill, cut off when the log is next opened.
    private mutating func append(_ line: Data) -> UInt64? {
        guard appendFD >= 0 else { return nil }
        let written = line.withUnsafeBytes { Glibc.write(appendFD, $0.baseAddress, $0.count) }
        guard written == line.count else {
            if writeProblem == nil { writeProblem = written < 0 ? String(cString: strerror(errno)) : "a record was cut short (disk full?)" }
            return nil
        }
        defer { appendOffset += line.count }
        return UInt64(appendNumber) << Self.offsetBits | UInt64(appendOffset)
    }

    // MARK: - Saving

    /// Moves every record not in log `own` (shards' logs, manifests before the log) into it.
    mutating func fold(into own: Int) throws(WorkbenchError) {
        let elsewhere = keys.filter { $0.value >> Self.offsetBits != UInt64(own) }
        for (key, location) in elsewhere {
            guard let line = storedLine(key, at: location), let moved = append(line) else { continue }
            keys[key] = moved
        }
    }

    /// Rewrites the log with its live lines only, ordered by key hash (so the same records give
    /// the same file), when more of its lines are stale than live or some are damaged.
    @discardableResult
    mutating func compactIfStale(path: String) throws(WorkbenchError) -> Bool {
        guard appendFD >= 0, staleCount > liveCount || damaged > 0 else { return false }
        var output = ManifestLine.header
        let temporary = path + ".\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .manifestUnwritable(path: temporary, reason: String(cString: strerror(errno))) }
        var failed: String?
        func flush() {
            let written = output.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written != output.count && failed == nil { failed = written < 0 ? String(cString: strerror(errno)) : "disk full?" }
            output.removeAll(keepingCapacity: true)
        }
        for (key, location) in keys.sorted(by: { $0.key < $1.key }) {
            guard let line = storedLine(key, at: location) else { continue }
            output.append(line)
            if output.count >= 1 << 20 { flush() }
        }
        flush()
        if failed == nil && fsync(fd) != 0 { failed = String(cString: strerror(errno)) }
        // What failed is reported; removing the temporary file is cleanup whose own failure
        // leaves only a hidden file the next run removes.
        Glibc.close(fd)
        if let failed {
            unlink(temporary)
            throw .manifestUnwritable(path: path, reason: failed)
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw .manifestUnwritable(path: path, reason: reason)
        }
        staleCount = 0
        damaged = 0
        return true
    }

    /// A log made by this run that holds no record is removed; a record that did not reach the disk is said.
    mutating func finish(path: String) throws(WorkbenchError) {
        if createdLog && liveCount == 0 && appendOffset <= ManifestLine.header.count { unlink(path) }
        if let writeProblem { throw .manifestUnwritable(path: path, reason: writeProblem) }
    }

    mutating func close() {
        for fd in readers where fd >= 0 && fd != appendFD { Glibc.close(fd) }
        readers = readers.map { _ in -1 }
        if appendFD >= 0 { Glibc.close(appendFD) }
        appendFD = -1
    }
}

/// Where a record is: in memory, or a line in a log (read with `pread`, so any thread may read
/// it while another appends).
enum RecordSource {
    case item(ManifestItem)
    case line(fd: Int32, offset: Int)

    func read() -> ManifestItem? {
        switch self {
        case .item(let item): return item
        case .line(let fd, let offset): return Self.line(fd: fd, offset: offset).flatMap(ManifestLine.item(in:))
        }
    }

    /// The bytes of the line at `offset`, without its newline.
    static func line(fd: Int32, offset: Int) -> Data? {
        var buffer = [UInt8](repeating: 0, count: 1024)
        var filled = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + filled, $0.count - filled, off_t(offset + filled)) }
            guard count > 0 else { return nil }
            if let newline = buffer[filled..<filled + count].firstIndex(of: UInt8(ascii: "\n")) {
                return Data(buffer[0..<newline])
            }
            filled += count
            if filled == buffer.count { buffer.append(contentsOf: repeatElement(0, count: buffer.count)) }
        }
    }
}
