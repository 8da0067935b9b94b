import CKernel
import Glibc
import WorkbenchCore

/// A filter's validated values as the C array the plugin table takes (`wb_param`), with the
/// memory it points to owned here and freed when this goes.
final class CParameters {
    private var params: [wb_param] = []
    private var allocations: [UnsafeMutableRawPointer] = []

    init(_ declarations: [ParameterSpec], _ values: ParameterValues) {
        for declaration in declarations {
            guard let value = values[declaration.name] ?? declaration.defaultValue else { continue }
            var param = wb_param()
            param.name = UnsafePointer(keep(strdup(declaration.name)))
            switch value {
            case .bool(let b): param.kind = Int32(WB_PARAM_NUMBER.rawValue); param.number = b ? 1 : 0
            case .int(let i): param.kind = Int32(WB_PARAM_NUMBER.rawValue); param.number = Double(i)
            case .double(let d): param.kind = Int32(WB_PARAM_NUMBER.rawValue); param.number = d
            case .string(let s): param.kind = Int32(WB_PARAM_TEXT.rawValue); param.text = UnsafePointer(keep(strdup(s)))
            case .list(let items):
                let rows = items.allSatisfy { if case .list = $0 { return true } else { return false } } && !items.isEmpty
                let numbers = (rows ? items.flatMap { if case .list(let row) = $0 { return row } else { return [] } } : items).map(Self.number)
                let buffer = UnsafeMutablePointer<Double>.allocate(capacity: max(numbers.count, 1))
                buffer.initialize(from: numbers, count: numbers.count)
                allocations.append(UnsafeMutableRawPointer(buffer))
                param.kind = Int32(WB_PARAM_NUMBERS.rawValue)
                param.numbers = UnsafePointer(buffer)
                param.count = Int32(numbers.count)
                param.rows = Int32(rows ? items.count : 1)
            }
            params.append(param)
        }
    }

    private static func number(_ value: ParameterValue) -> Double {
        switch value {
        case .int(let i): return Double(i)
        case .double(let d): return d
        case .bool(let b): return b ? 1 : 0
        default: return 0
        }
    }

    private func keep(_ text: UnsafeMutablePointer<CChar>?) -> UnsafeMutablePointer<CChar>? {
        if let text { allocations.append(UnsafeMutableRawPointer(text)) }
        return text
    }

    /// `body` gets the array and its count.
    func withUnsafeParameters<R>(_ body: (UnsafePointer<wb_param>, Int32) -> R) -> R {
        var blank = wb_param()
        return params.withUnsafeBufferPointer { buffer in
            if let base = buffer.baseAddress { return body(base, Int32(buffer.count)) }
            // No parameters: a valid pointer all the same, with a count of 0.
            return withUnsafePointer(to: &blank) { body($0, 0) }
        }
    }

    deinit { for allocation in allocations { free(allocation) } }
}

/// The text in a C message buffer, up to its terminating zero.
func messageText(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
