#if FUZZING
/// libFuzzer's entry for programs that keep their own `main` (`libclang_rt.fuzzer_no_main`):
/// SwiftPM links an executable's entry point under a name of its own, so the fuzz targets
/// start libFuzzer from there instead of linking libFuzzer's `main`.
@_silgen_name("LLVMFuzzerRunDriver")
private func runDriver(_ argc: UnsafeMutablePointer<CInt>,
                       _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                       _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

public enum FuzzDriver {
    /// Runs libFuzzer with the process's arguments, calling `callback` with each input.
    public static func run(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                           _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt {
        var count = argc
        var values = argv
        return runDriver(&count, &values, callback)
    }
}
#endif
