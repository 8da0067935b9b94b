/// One scan of a progressive JPEG: a band of frequencies (`start`…`end` in zigzag order; 0…0 is
/// the DC band) of some components, to `low` bits of precision, first pass (`high` 0) or one
/// more bit of coefficients already seen (successive approximation).
struct ProgressiveScan {
    struct Member {
        /// Index into the frame's components.
        let component: Int
        let dc: JPEGHuffmanTable?
        let ac: JPEGHuffmanTable?
    }

    let members: [Member]
    let start: Int, end: Int
    let high: Int, low: Int
    let restartInterval: Int

    /// Decodes the entropy-coded data at `from` (which ends where its marker is, `until`) into
    /// the frame's kept coefficients; false on anything not valid (libvips then decodes the file).
    func decode(_ data: UnsafeRawBufferPointer, from: Int, until: Int, into frame: inout ProgressiveFrame) -> Bool {
        guard start <= end, end <= 63, low <= 13, high == 0 || high == low + 1 else { return false }
        var reader = JPEGEntropyReader(data, at: from)
        let decoded: Bool
        if start == 0 {
            guard end == 0 else { return false }
            decoded = decodeDC(&reader, frame)
        } else {
            // AC bands come one component at a time.
            guard members.count == 1, let table = members[0].ac else { return false }
            decoded = decodeAC(&reader, frame.components[members[0].component], table: table)
        }
        return decoded && !reader.readPastEnd && reader.position <= until
    }

    /// DC bands: interleaved MCU by MCU, or for one component block by block over the blocks
    /// that hold image; a first pass decodes differences from the previous block's value.
    private func decodeDC(_ reader: inout JPEGEntropyReader, _ frame: ProgressiveFrame) -> Bool {
        let single = members.count == 1
        let components = members.map { frame.components[$0.component] }
        let across = single ? components[0].blocksWide : frame.mcusWide
        let down = single ? components[0].blocksHigh : frame.mcusHigh
        let layout = components.map { (h: single ? 1 : $0.h, v: single ? 1 : $0.v, stride: $0.stride,
                                       size: $0.kept * $0.kept, values: $0.store.values.baseAddress!) }
        guard high != 0 || members.allSatisfy({ $0.dc != nil }) else { return false }
        // The short codes' look-up tables side by side, read through one pointer: handing the
        // tables themselves to the reader block by block costs more than the decoding.
        let lookups = members.flatMap { $0.dc?.lookup ?? [UInt16](repeating: 0, count: 1 << JPEGHuffmanTable.lookupBits) }
        return lookups.withUnsafeBufferPointer { lookups in
            var predictions = [Int](repeating: 0, count: members.count)
            var restarts = 0
            let bit = Int16(truncatingIfNeeded: 1 << low)
            var (x, y) = (0, 0)
            for mcu in 0..<(across * down) {
                if restartInterval > 0, mcu > 0, mcu % restartInterval == 0 {
                    guard reader.restart(number: restarts) else { return false }
                    restarts += 1
                    for slot in predictions.indices { predictions[slot] = 0 }
                }
                for slot in layout.indices {
                    let (h, v, stride, size, values) = layout[slot]
                    for by in 0..<v {
                        let row = (y * v + by) * stride + x * h
                        for bx in 0..<h {
                            let value = values + (row + bx) * size
                            if high != 0 {
                                if reader.bits(1) != 0 { value.pointee |= bit }
                                continue
                            }
                            let short = reader.shortSymbol(lookups.baseAddress! + slot << JPEGHuffmanTable.lookupBits)
                            guard let category = short ?? members[slot].dc.flatMap({ reader.symbol($0) }), category <= 11 else { return false }
                            predictions[slot] += reader.difference(category: category)
                            value.pointee = Int16(truncatingIfNeeded: predictions[slot] << low)
                        }
                    }
                }
                x += 1
                if x == across { x = 0; y += 1 }
            }
            return true
        }
    }

    /// AC bands of one component, block by block over the blocks that hold image. A first pass
    /// reads runs of zeros and new values, with end-of-band runs spanning blocks; a refinement
    /// adds a bit to each coefficient already nonzero and places the newly nonzero ones (±1).
    private func decodeAC(_ reader: inout JPEGEntropyReader, _ component: ProgressiveFrame.Component, table: JPEGHuffmanTable) -> Bool {
        let kept = component.kept, size = kept * kept
        let values = component.store.values.baseAddress!, nonzero = component.store.nonzero.baseAddress!
        // Where zigzag position k lives in a block's kept values, or -1 when it is not kept.
        let slots = JPEGZigzag.natural.map { natural in natural / 8 < kept && natural % 8 < kept ? (natural / 8) * kept + natural % 8 : -1 }
        return table.lookup.withUnsafeBufferPointer { lookup in
            slots.withUnsafeBufferPointer { slots in
                var endOfBands = 0
                var restarts = 0
                let one = 1 << low
                var blockIndex = 0
                for y in 0..<component.blocksHigh {
                    for x in 0..<component.blocksWide {
                        if restartInterval > 0, blockIndex > 0, blockIndex % restartInterval == 0 {
                            guard reader.restart(number: restarts) else { return false }
                            restarts += 1
                            endOfBands = 0
                        }
                        blockIndex += 1
                        let block = y * component.stride + x
                        let value = values + block * size
                        var mask = nonzero[block]
                        defer { nonzero[block] = mask }
                        if high == 0 {
                            if endOfBands > 0 { endOfBands -= 1; continue }
                            var k = start
                            while k <= end {
                                guard let symbol = reader.shortSymbol(lookup.baseAddress!) ?? reader.symbol(table) else { return false }
                                let run = symbol >> 4, bits = symbol & 15
                                if bits != 0 {
                                    k += run
                                    guard k <= end else { return false }
                                    let coefficient = reader.difference(category: bits) * one
                                    mask |= 1 << UInt64(k)
                                    if slots[k] >= 0 { value[slots[k]] = Int16(truncatingIfNeeded: coefficient) }
                                    k += 1
                                } else if run == 15 {
                                    k += 16
                                } else {
                                    endOfBands = (1 << run) + reader.bits(run) - 1
                                    break
                                }
                            }
                            continue
                        }
                        // Refinement: the correction bit of every nonzero coefficient passed.
                        var k = start
                        @inline(__always) func correct(_ k: Int) {
                            if reader.bits(1) != 0, slots[k] >= 0 {
                                let old = Int(value[slots[k]])
                                if old & one == 0 { value[slots[k]] = Int16(truncatingIfNeeded: old >= 0 ? old + one : old - one) }
                            }
                        }
                        if endOfBands == 0 {
                            while k <= end {
                                guard let symbol = reader.shortSymbol(lookup.baseAddress!) ?? reader.symbol(table) else { return false }
                                var run = symbol >> 4
                                let bits = symbol & 15
                                var placed = 0
                                if bits != 0 {
                                    guard bits == 1 else { return false }
                                    placed = reader.bits(1) != 0 ? one : -one
                                } else if run != 15 {
                                    endOfBands = (1 << run) + reader.bits(run)
                                    break
                                }
                                // Pass `run` zero coefficients (correcting nonzero ones on the way),
                                // then place the new one, if any, on the next zero.
                                while k <= end {
                                    if mask & (1 << UInt64(k)) != 0 {
                                        correct(k)
                                    } else {
                                        if run == 0 { break }
                                        run -= 1
                                    }
                                    k += 1
                                }
                                if placed != 0 {
                                    guard k <= end else { return false }
                                    mask |= 1 << UInt64(k)
                                    if slots[k] >= 0 { value[slots[k]] = Int16(truncatingIfNeeded: placed) }
                                }
                                k += 1
                            }
                        }
                        if endOfBands > 0 {
                            // Only the nonzero ones from k to the band's end take a bit: visit
                            // their set bits rather than every position.
                            if k <= end {
                                var pending = mask & (UInt64.max >> UInt64(63 - end)) & (UInt64.max << UInt64(k))
                                while pending != 0 {
                                    correct(pending.trailingZeroBitCount)
                                    pending &= pending - 1
                                }
                            }
                            endOfBands -= 1
                        }
                    }
                }
                return true
            }
        }
    }
}

/// JPEG's zigzag order: `natural[k]` is where (row × 8 + column) the k-th coefficient sits.
enum JPEGZigzag {
    static let natural: [Int] = [
        0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21,
        28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61,
        54, 47, 55, 62, 63,
    ]
}
