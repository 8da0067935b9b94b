import Foundation
import Glibc
import WorkbenchCore

/// `wb_image_info` on the wire.
struct WireImage: Codable {
    var width, height, bands, hasAlpha, format: Int32
    var max: Float
}

/// Where a region's samples are in shared memory: input rows from offset 0, packed; output rows
/// from `outputOffset`, packed.
struct WireRegion: Codable {
    var left, top, width, height: Int32
    var inputStride, outputStride, outputOffset, memorySize: Int
}

/// Sending and receiving whole messages on a SEQPACKET socket.
enum HelperWire {
    static let largestMessage = 1 << 20

    static func send<M: Encodable>(_ message: M, on socket: Int32) -> Bool {
        // Our own message types always encode; false is this function's failure answer anyway.
        guard let data = try? JSONEncoder().encode(message) else { return false }
        return data.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) == $0.count }
    }

    /// The next message, or nil at the end of the stream or on an error.
    static func receive<M: Decodable>(_ type: M.Type, on socket: Int32, buffer: inout [UInt8]) -> M? {
        if buffer.count < largestMessage { buffer = [UInt8](repeating: 0, count: largestMessage) }
        let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        // A message that does not decode is a broken helper: nil makes the caller treat it as one.
        return try? JSONDecoder().decode(M.self, from: Data(buffer[0..<count]))
    }
}
