// The kernel contract (`Kernel`, `KernelRegion`, `KernelTable`, …) is the plugin kit's, so
// built-in kernels are written exactly as plugin kernels are.
@_exported import WorkbenchKit
