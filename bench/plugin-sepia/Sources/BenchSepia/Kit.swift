// The host's kernel sources expect the kit's types in scope, as WorkbenchKernels provides them.
@_exported import WorkbenchKit
