import CKernel

/// The values a plugin filter is made with: every parameter its `plugin.json` declares, already
/// checked by the host against the declaration (types, ranges, choices), defaults filled in.
public struct KernelParameters: Sendable {
    /// One value as the host passes it (see `wb_param`).
    public enum Value: Sendable, Equatable {
        /// Numbers, integers and booleans (false 0, true 1).
        case number(Double)
        case text(String)
        /// A list, or a matrix row after row (`rows` rows).
        case numbers([Double], rows: Int)
    }

    public let values: [String: Value]

    public init(_ values: [String: Value]) { self.values = values }

    /// The values behind a C parameter array.
    public init(_ params: UnsafePointer<wb_param>?, count: Int) {
        var values: [String: Value] = [:]
        for i in 0..<(params == nil ? 0 : count) {
            guard let param = params?[i], let name = param.name else { continue }
            switch wb_param_kind(rawValue: UInt32(bitPattern: param.kind)) {
            case WB_PARAM_TEXT: values[String(cString: name)] = .text(param.text.map { String(cString: $0) } ?? "")
            case WB_PARAM_NUMBERS:
                let numbers = param.numbers.map { Array(UnsafeBufferPointer(start: $0, count: Int(param.count))) } ?? []
                values[String(cString: name)] = .numbers(numbers, rows: Int(param.rows))
            default: values[String(cString: name)] = .number(param.number)
            }
        }
        self.values = values
    }

    public func number(_ name: String) throws(KernelError) -> Double {
        guard case .number(let value) = values[name] else { throw missing(name, "a number") }
        return value
    }

    public func integer(_ name: String) throws(KernelError) -> Int {
        let value = try number(name)
        guard let integer = Int(exactly: value) else { throw KernelError("parameter \"\(name)\" is \(value), not an integer") }
        return integer
    }

    public func bool(_ name: String) throws(KernelError) -> Bool { try number(name) != 0 }

    public func text(_ name: String) throws(KernelError) -> String {
        guard case .text(let value) = values[name] else { throw missing(name, "a string") }
        return value
    }

    /// A list of numbers (a single number reads as a list of one).
    public func numbers(_ name: String) throws(KernelError) -> [Double] {
        switch values[name] {
        case .numbers(let numbers, _): return numbers
        case .number(let number): return [number]
        default: throw missing(name, "a list of numbers")
        }
    }

    /// A matrix, row by row.
    public func matrix(_ name: String) throws(KernelError) -> [[Double]] {
        guard case .numbers(let numbers, let rows) = values[name], rows > 0, numbers.count % rows == 0 else {
            throw missing(name, "a matrix")
        }
        let columns = numbers.count / rows
        return (0..<rows).map { Array(numbers[($0 * columns)..<(($0 + 1) * columns)]) }
    }

    private func missing(_ name: String, _ kind: String) -> KernelError {
        KernelError(values[name] == nil ? "no parameter \"\(name)\" (declare it in plugin.json)" : "parameter \"\(name)\" is not \(kind)")
    }
}
