#include "CVipsGuard.h"

#include <setjmp.h>
#include <signal.h>
#include <string.h>

static __thread sigjmp_buf *guard_target;
static struct sigaction previous_action;

static void on_abort(int signal, siginfo_t *info, void *context) {
    sigjmp_buf *target = guard_target;
    (void) info; (void) context;
    if (target != NULL) {
        guard_target = NULL;
        siglongjmp(*target, 1);
    }
    sigaction(SIGABRT, &previous_action, NULL);
    raise(signal);
}

void cvips_install_abort_guard(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_abort;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    sigaction(SIGABRT, &action, &previous_action);
}

int cvips_guarded_buildp(VipsOperation **operation) {
    sigjmp_buf target;
    if (sigsetjmp(target, 1) != 0) return -2;
    guard_target = &target;
    int result = vips_cache_operation_buildp(operation);
    guard_target = NULL;
    return result;
}

VipsImage *cvips_guarded_kernel_image(VipsImage *in, cvips_pixel_kernel kernel, const void *context,
                                      cvips_context_release release, int *aborted) {
    sigjmp_buf target;
    *aborted = 0;
    if (sigsetjmp(target, 1) != 0) {
        *aborted = 1;
        return NULL;
    }
    guard_target = &target;
    VipsImage *out = cvips_kernel_image(in, kernel, context, release);
    guard_target = NULL;
    return out;
}
