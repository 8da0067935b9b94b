import WorkbenchCore
import WorkbenchKernels

/// Ops whose pixels come from a kernel's C table made for each image: plugin filters, whose
/// kernels live in a plugin's library (or in a helper process, behind a table the host makes).
public enum KernelTableFilter {
    /// An op `name` that runs the table `make` returns for each image, as a node of libvips'
    /// pipeline like every kernel. The node takes over the table's instance.
    public static func define(_ name: String, _ summary: String, _ parameters: [ParameterSpec],
                              make: @escaping @Sendable (ParameterValues, StageContext) throws -> CKernelTable) -> OpDefinition {
        FilterStage.define(name, summary, parameters) { values in
            { image, _, context in
                let table = try make(values, context)
                return try image.applying(table: table, name: name, colourBands: Int(table.input_colour_bands),
                                          cancellation: context.cancellation)
            }
        }
    }
}
