/// One scan of a progressive JPEG: a band of frequencies (`start`…`end` in zigzag order; 0…0 is
/// the DC band) of some components, to `low` bits of precision, first pass (`high` 0) or one
/// more bit of coefficients already seen (successive approximation).
///
/// Made from its SOS header with every check libjpeg makes before it reads a scan's data
/// (`get_sos`, `per_scan_setup`, `start_pass_phuff_decoder`), whether or not this decoder then
/// needs the scan's coefficients.
struct ProgressiveScan {
    struct Member {
        /// Index into the frame's components.
        let component: Int
        let dc: JPEGHuffmanTable?
        let ac: JPEGHuffmanTable?
    }

    /// libjpeg's largest MCU (`D_MAX_BLOCKS_IN_MCU`).
    static let largestMCU = 10

    let members: [Member]
    let start: Int, end: Int
    let high: Int, low: Int
    let restartInterval: Int
    /// The scan's number in the file, from 1, for messages.
    let number: Int

    var isDC: Bool { start == 0 }

    init(_ data: UnsafeRawBufferPointer, body: Int, length: Int, number: Int, frame: ProgressiveFrame,
         dcTables: [JPEGHuffmanTable?], acTables: [JPEGHuffmanTable?], restartInterval: Int) throws(ProgressiveRefusal) {
        let count = length >= 3 ? Int(data[body]) : 0
        guard (1...4).contains(count), length == 6 + 2 * count else {
            throw .damaged(.badLength, "scan \(number): a header of \(length) bytes for \(count) components", at: body - 2)
        }
        self.number = number
        self.restartInterval = restartInterval
        start = Int(data[body + 1 + 2 * count])
        end = Int(data[body + 2 + 2 * count])
        high = Int(data[body + 3 + 2 * count] >> 4)
        low = Int(data[body + 3 + 2 * count] & 15)
        let dc = start == 0
        let badBand = dc ? end != 0 : (end < start || end > 63 || count != 1)
        guard !badBand, high == 0 || low == high - 1, low <= 13 else {
            throw .damaged(.badProgression, "scan \(number): band \(start)…\(end), bits \(high)→\(low) of \(count) components", at: body)
        }
        var members: [Member] = []
        var blocksInMCU = 0
        for index in 0..<count {
            let at = body + 1 + 2 * index
            let id = data[at], selectors = data[at + 1]
            guard let component = frame.components.firstIndex(where: { $0.id == id }) else {
                throw .damaged(.unknownComponent, "scan \(number): component \(id), which the frame does not have", at: at)
            }
            guard !members.contains(where: { $0.component == component }) else {
                throw .damaged(.duplicateComponent, "scan \(number): component \(id) twice", at: at)
            }
            // T.81 lists a scan's components in the frame's order; libjpeg refuses some other
            // orders ("Invalid component ID"), so any other order is left to it.
            guard members.last.map({ $0.component < component }) ?? true else {
                throw .damaged(.componentOrder, "scan \(number): component \(id) out of the frame's order", at: at)
            }
            blocksInMCU += frame.components[component].h * frame.components[component].v
            // Only the tables this pass decodes with must exist and be sound.
            let dcTable = dc && high == 0 ? try Self.table(dcTables, Int(selectors >> 4), dc: true, scan: number, at: at + 1) : nil
            let acTable = dc ? nil : try Self.table(acTables, Int(selectors & 15), dc: false, scan: number, at: at + 1)
            members.append(Member(component: component, dc: dcTable, ac: acTable))
        }
        if count > 1, blocksInMCU > Self.largestMCU {
            throw .damaged(.mcuTooLarge, "scan \(number): \(blocksInMCU) blocks an MCU (at most \(Self.largestMCU))", at: body)
        }
        self.members = members
    }

    private static func table(_ tables: [JPEGHuffmanTable?], _ selector: Int, dc: Bool, scan: Int, at: Int) throws(ProgressiveRefusal) -> JPEGHuffmanTable {
        let kind = dc ? "DC" : "AC"
        guard selector < tables.count, let table = tables[selector] else {
            throw .damaged(.undefinedHuffmanTable, "scan \(scan): \(kind) Huffman table \(selector) was not defined", at: at)
        }
        if let flaw = table.refusal(asDC: dc) { throw .damaged(.badHuffmanTable, "scan \(scan): \(kind) Huffman table \(selector) has \(flaw)", at: at) }
        return table
    }

    /// Records the precision this scan brings to each member's coefficients, as libjpeg's
    /// `coef_bits`; libjpeg warns of a scan out of order (an AC band before the DC, a bit
    /// refined twice or skipped) and decodes on in ways of its own, so such a file is refused.
    func advancePrecision(of frame: inout ProgressiveFrame) throws(ProgressiveRefusal) {
        for member in members {
            if !isDC && frame.components[member.component].precision[0] < 0 {
                throw .damaged(.bogusProgression, "scan \(number): AC coefficients of component \(frame.components[member.component].id) before its DC")
            }
            for k in start...end {
                let reached = frame.components[member.component].precision[k]
                guard high == (reached < 0 ? 0 : reached) else {
                    throw .damaged(.bogusProgression, "scan \(number): coefficient \(k) of component \(frame.components[member.component].id) refined from bit \(high), but it is at bit \(reached)")
                }
                frame.components[member.component].precision[k] = low
            }
        }
    }

    /// Decodes the entropy-coded data at `from` (which ends where its marker is, `until`) into
    /// the frame's kept coefficients.
    func decode(_ data: UnsafeRawBufferPointer, from: Int, until: Int, into frame: ProgressiveFrame) throws(ProgressiveRefusal) {
        var reader = JPEGEntropyReader(data, at: from)
        let fault = isDC ? decodeDC(&reader, frame) : decodeAC(&reader, frame.components[members[0].component])
        // Bits read past the data make any fault found after them a consequence of that.
        if reader.readPastEnd || reader.position > until {
            throw .damaged(.corruptData, "scan \(number): its data ends early", at: min(reader.position, until))
        }
        if let fault { throw .damaged(fault.reason, "scan \(number): \(fault.words)", at: min(reader.position, until)) }
        if let unread = reader.firstUnreadByte(before: until) {
            throw .damaged(.extraneousBytes, "scan \(number): \(until - unread) bytes after its last block, before the next marker (libjpeg warns of extraneous data)", at: unread)
        }
    }

    /// Where a DC scan's blocks are: each member's blocks of one MCU as offsets into its values
    /// from the MCU's first block, and how far the MCU at (x, y) is from the first — one flat
    /// list for the whole scan. A scan of one component goes block by block over the blocks that
    /// hold image; several go MCU by MCU.
    private struct DCLayout {
        var blocks: [(values: UnsafeMutablePointer<Int16>, slot: Int, offset: Int)] = []
        var steps: [(x: Int, y: Int)] = []
        var across = 0, down = 0
    }

    private func dcLayout(_ frame: ProgressiveFrame) -> DCLayout? {
        let single = members.count == 1
        let components = members.map { frame.components[$0.component] }
        let stores = components.compactMap(\.store)
        guard stores.count == components.count else { return nil }
        var layout = DCLayout()
        layout.across = single ? components[0].blocksWide : frame.mcusWide
        layout.down = single ? components[0].blocksHigh : frame.mcusHigh
        for (slot, component) in components.enumerated() {
            let (h, v) = single ? (1, 1) : (component.h, component.v)
            let size = component.kept * component.kept
            for by in 0..<v { for bx in 0..<h { layout.blocks.append((stores[slot].values, slot, (by * component.stride + bx) * size)) } }
            layout.steps.append((h * size, v * component.stride * size))
        }
        return layout
    }

    private func decodeDC(_ reader: inout JPEGEntropyReader, _ frame: ProgressiveFrame) -> EntropyFault? {
        guard let layout = dcLayout(frame) else { return .missingTable }
        return high == 0 ? firstDC(&reader, layout) : refineDC(&reader, layout)
    }

    /// Walks a DC scan block by block in file order: MCU after MCU, each member's blocks of it,
    /// reading the restart marker due before an MCU (`restarted` then resets what the pass
    /// carries from block to block). `block` gets the block's member and value; false stops.
    @inline(__always)
    private func walk(_ reader: inout JPEGEntropyReader, _ layout: DCLayout, restarted: () -> Void,
                      _ block: (inout JPEGEntropyReader, _ slot: Int, UnsafeMutablePointer<Int16>) -> EntropyFault?) -> EntropyFault? {
        layout.blocks.withUnsafeBufferPointer { blocks in
            layout.steps.withUnsafeBufferPointer { steps in
                var restarts = 0
                var (x, y) = (0, 0)
                for mcu in 0..<(layout.across &* layout.down) {
                    if restartInterval > 0, mcu > 0, mcu % restartInterval == 0 {
                        guard reader.restart(number: restarts) else { return .missingRestart }
                        restarts &+= 1
                        restarted()
                    }
                    for entry in blocks {
                        let step = steps[entry.slot]
                        if let fault = block(&reader, entry.slot, entry.values + (entry.offset &+ x &* step.x &+ y &* step.y)) { return fault }
                    }
                    x &+= 1
                    if x == layout.across { x = 0; y &+= 1 }
                }
                return nil
            }
        }
    }

    /// A DC first pass: each block's value is a Huffman-coded difference from the previous
    /// block's of the same component (reset at each restart), scaled up by `low` bits.
    private func firstDC(_ reader: inout JPEGEntropyReader, _ layout: DCLayout) -> EntropyFault? {
        // The short codes' look-up tables side by side, read through one pointer: handing the
        // tables themselves to the reader block by block costs more than the decoding.
        let lookups = members.flatMap { $0.dc?.lookup ?? [UInt16](repeating: 0, count: 1 << JPEGHuffmanTable.lookupBits) }
        return lookups.withUnsafeBufferPointer { lookups in
            var predictions = (0, 0, 0, 0)
            return walk(&reader, layout, restarted: { predictions = (0, 0, 0, 0) }) { reader, slot, value in
                let short = reader.shortSymbol(lookups.baseAddress! + slot &<< JPEGHuffmanTable.lookupBits)
                guard let category = short ?? members[slot].dc.flatMap({ reader.symbol($0) }) else { return .badHuffmanCode }
                guard category <= 11 else { return .dcCategory }
                let difference = reader.difference(category: category)
                // libjpeg keeps the running value in an int and refuses one that leaves it.
                let prediction: Int
                switch slot {
                case 0: predictions.0 &+= difference; prediction = predictions.0
                case 1: predictions.1 &+= difference; prediction = predictions.1
                case 2: predictions.2 &+= difference; prediction = predictions.2
                default: predictions.3 &+= difference; prediction = predictions.3
                }
                guard prediction >= Int(Int32.min), prediction <= Int(Int32.max) else { return .dcOutOfRange }
                value.pointee = Int16(truncatingIfNeeded: prediction &<< low)
                return nil
            }
        }
    }

    /// A DC refinement: one raw bit per block, the next bit of its value.
    private func refineDC(_ reader: inout JPEGEntropyReader, _ layout: DCLayout) -> EntropyFault? {
        let bit = Int16(truncatingIfNeeded: 1 &<< low)
        return walk(&reader, layout, restarted: {}) { reader, _, value in
            if reader.bits(1) != 0 { value.pointee |= bit }
            return nil
        }
    }
}
