// The C half of the bridge to libvips: what needs real C globals or code, not just a header.
//
// The abort guard, a last line of defence against libvips' assertions.
//
// libvips checks some invariants with g_assert (an image of zero width reaching
// vips_image_generate, for one), which aborts the whole process: one odd image or parameter
// would take every other item of a batch with it. The sizes we compute are kept valid, but a
// preset may call any operation with any values, so building an operation runs under a guard:
// while the calling thread is inside a guarded call, SIGABRT jumps back to the guard, which
// reports failure instead. The half-built object is leaked, never touched again. An abort
// anywhere else (another thread, outside a guarded call) goes to the handler that was there
// before (Swift's crash report), as if this one did not exist.
//
// This is a C target of its own, not part of CVips' header, because the jump target and the
// previous handler must exist once in the process (a header's statics would be copied into
// every object file that uses them).
#ifndef CVIPS_BRIDGE_H
#define CVIPS_BRIDGE_H

#include "../../CVips/CVips.h"
#include "workbench_kernel.h"

// Installs the SIGABRT handler and GLib's fatal-message handlers; once, before threads run
// guarded calls.
void cvips_install_abort_guard(void);

// Points C's `stdout` at standard error. libvips prints some diagnostics with printf (a failed
// sanity check, for one); a program whose standard output is a report calls this first, and
// writes its report to file descriptor 1 directly.
void cvips_send_stdio_output_to_stderr(void);

// C's `stdout` without libvips' printed sanity failures (the guard reports them as the item's
// failure), to standard output or, with `to_stderr`, standard error.
void cvips_filter_stdio_output(int to_stderr);

// What GLib said before the last abort caught on this thread (the assertion), or "".
const char *cvips_guard_message(void);

// vips_cache_operation_buildp under the guard: 0 built, -1 failed, -2 libvips aborted.
int cvips_guarded_buildp(VipsOperation **operation);

// --- Kernels as pipeline nodes (kernel_node.c) ---

// Called once when a kernel node's image closes, with the context given to cvips_kernel_node.
typedef void (*cvips_kernel_closed)(void *context);
// Called when the kernel fails a region, with the same context and "name: message" (libvips'
// error buffer, shared by every thread, gets the message too).
typedef void (*cvips_kernel_failed)(void *context, const char *message);

// A new image whose pixels `kernel` computes from `in` (8-bit, 16-bit or float, 1–4 bands),
// region by region on libvips' threads; NULL on failure, with libvips' error buffer saying why.
// Between regions it stops when `*cancelled` becomes nonzero or the evaluation is killed.
// Takes over `kernel->instance` and `closed_context` either way: both are released (through
// the kernel's `release` and `closed`) when the image closes, or at once on failure.
VipsImage *cvips_kernel_node(VipsImage *in, const wb_kernel *kernel, const int *cancelled,
                             cvips_kernel_closed closed, cvips_kernel_failed failed, void *closed_context);

// cvips_kernel_node under the guard: NULL on failure, with *aborted set to 1 if libvips aborted
// (then nothing was released: what the half-made node holds is leaked, never touched again).
VipsImage *cvips_guarded_kernel_node(VipsImage *in, const wb_kernel *kernel, const int *cancelled,
                                     cvips_kernel_closed closed, cvips_kernel_failed failed, void *closed_context,
                                     int *aborted);

// --- libvips' modules, loaded when needed (modules.c) ---
//
// Debian's libvips keeps five loaders and savers in modules (HEIF/AVIF, JPEG XL, PDF, OpenSlide,
// ImageMagick), and vips_init loads all of them: 30-60 ms and ~8 MiB of libraries most runs
// never use. These start libvips without them and load one when an operation needs it.

// vips_init without loading modules (libvips looks for them under $VIPSHOME, pointed elsewhere
// for the call and restored after); remembers where they are for cvips_load_module.
int cvips_start_without_modules(const char *argv0);

// Loads vips-NAME.so from libvips' module folder once: 0 loaded (or already), 1 not installed,
// -1 failed (`*message` then says why, until the next call).
int cvips_load_module(const char *name, const char **message);

// The folder modules are loaded from (NULL before libvips starts, or when it cannot be found).
const char *cvips_module_folder(void);

#endif
