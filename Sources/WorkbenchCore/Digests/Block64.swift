/// The 64-byte blocks SHA-256 and MD5 compress: bytes fed in any pieces come out as whole
/// blocks, read in place when a piece covers one, else gathered here first.
struct Block64: Sendable {
    private var bytes = [UInt8](repeating: 0, count: 64)
    private var count = 0
    /// Every byte fed so far, for the length the padding ends with.
    private var length: UInt64 = 0

    /// The byte order a digest writes its words and the message's length in.
    enum ByteOrder { case little, big }

    mutating func feed(_ input: UnsafeRawBufferPointer, _ compress: (UnsafeRawBufferPointer) -> Void) {
        length += UInt64(input.count)
        var offset = 0
        if count > 0 {
            let taken = min(64 - count, input.count)
            for i in 0..<taken { bytes[count + i] = input[i] }
            count += taken
            offset = taken
            guard count == 64 else { return }
            bytes.withUnsafeBytes { compress($0) }
            count = 0
        }
        while input.count - offset >= 64 {
            compress(UnsafeRawBufferPointer(rebasing: input[offset..<(offset + 64)]))
            offset += 64
        }
        for i in offset..<input.count { bytes[i - offset] = input[i] }
        count = input.count - offset
    }

    /// The message's end: 0x80, zeros to 56 bytes of a block, and the length in bits in
    /// `order` (MD5 little-endian, SHA-256 big-endian), compressed.
    mutating func finish(_ order: ByteOrder, _ compress: (UnsafeRawBufferPointer) -> Void) {
        let bits = length &* 8
        var tail: [UInt8] = [0x80]
        while (Int(length % 64) + tail.count) % 64 != 56 { tail.append(0) }
        tail += Self.bytes(of: bits, count: 8, order)
        tail.withUnsafeBytes { tail in feed(tail, compress) }
    }

    /// A digest's words as bytes, each in `order`.
    static func digest(_ words: [UInt32], _ order: ByteOrder) -> [UInt8] {
        words.flatMap { bytes(of: UInt64($0), count: 4, order) }
    }

    private static func bytes(of value: UInt64, count: Int, _ order: ByteOrder) -> [UInt8] {
        let little = (0..<count).map { UInt8(truncatingIfNeeded: value >> UInt64(8 * $0)) }
        return order == .little ? little : little.reversed()
    }
}

/// A digest made of 64-byte blocks while its message is fed in pieces (MD5, SHA-256): the
/// feeding, the padding and the output are here, each digest gives its state and its rounds.
struct BlockDigest<State: Sendable>: Sendable {
    private var state: State
    private var blocks = Block64()
    private let order: Block64.ByteOrder
    private let compress: @Sendable (inout State, UnsafeRawBufferPointer) -> Void
    private let words: @Sendable (State) -> [UInt32]

    init(_ initial: State, order: Block64.ByteOrder, compress: @escaping @Sendable (inout State, UnsafeRawBufferPointer) -> Void,
         words: @escaping @Sendable (State) -> [UInt32]) {
        (state, self.order, self.compress, self.words) = (initial, order, compress, words)
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var state = self.state
        let compress = compress
        blocks.feed(bytes) { block in compress(&state, block) }
        self.state = state
    }

    /// The digest of everything fed: the padding compressed, the state's words in `order`.
    mutating func finish() -> [UInt8] {
        var state = self.state
        let compress = compress
        blocks.finish(order) { block in compress(&state, block) }
        self.state = state
        return Block64.digest(words(state), order)
    }
}
