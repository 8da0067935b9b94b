#include "CVipsBridge.h"

#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <string.h>

static __thread sigjmp_buf *guard_target;
static __thread char guard_message[512];
static struct sigaction previous_action;
static GPrintFunc previous_printerr;

// While a guarded call runs on this thread, what GLib says on its way to abort (the assertion
// text) is kept for the error message instead of printed; elsewhere it is printed as before.
static void on_fatal_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void) data;
    if (guard_target != NULL) {
        g_strlcpy(guard_message, message ? message : "", sizeof guard_message);
        return;
    }
    g_log_default_handler(domain, level, message, NULL);
}

static GPrintFunc previous_print;

// GLib prints an assertion's "Bail out!" line with g_print, on standard output.
static void on_print(const gchar *text) {
    if (guard_target != NULL) return;
    if (previous_print != NULL) previous_print(text);
    else fputs(text, stdout);
}

static void on_printerr(const gchar *text) {
    if (guard_target != NULL) {
        if (guard_message[0] == '\0') g_strlcpy(guard_message, text ? text : "", sizeof guard_message);
        return;
    }
    if (previous_printerr != NULL) previous_printerr(text);
    else fputs(text, stderr);
}

const char *cvips_guard_message(void) { return guard_message; }

static void on_abort(int signal, siginfo_t *info, void *context) {
    sigjmp_buf *target = guard_target;
    (void) info; (void) context;
    if (target != NULL) {
        guard_target = NULL;
        siglongjmp(*target, 1);
    }
    // Not a guarded call: abort as libvips meant to. Inside a handler there is nothing to do
    // about a failure of either, and the process ends on SIGABRT's return anyway.
    sigaction(SIGABRT, &previous_action, NULL);
    raise(signal);
}

void cvips_install_abort_guard(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_abort;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    // sigaction fails only for a signal that cannot be caught or a bad address: neither here.
    sigaction(SIGABRT, &action, &previous_action);
    g_log_set_handler("VIPS", G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_FLAG_FATAL | G_LOG_FLAG_RECURSION,
                      on_fatal_log, NULL);
    previous_printerr = g_set_printerr_handler(on_printerr);
    previous_print = g_set_print_handler(on_print);
}

void cvips_send_stdio_output_to_stderr(void) {
    int descriptor = dup(STDERR_FILENO);
    if (descriptor < 0) return;
    FILE *file = fdopen(descriptor, "w");
    if (file == NULL) {
        close(descriptor);
        return;
    }
    // Line buffering is a preference: if refused, the stream keeps the default and still works.
    setvbuf(file, NULL, _IOLBF, 0);
    stdout = file;
}

int cvips_guarded_buildp(VipsOperation **operation) {
    sigjmp_buf target;
    if (sigsetjmp(target, 1) != 0) return -2;
    guard_message[0] = '\0';
    guard_target = &target;
    int result = vips_cache_operation_buildp(operation);
    guard_target = NULL;
    return result;
}

VipsImage *cvips_guarded_kernel_node(VipsImage *in, const wb_kernel *kernel, const int *cancelled,
                                     cvips_kernel_closed closed, cvips_kernel_failed failed, void *closed_context,
                                     int *aborted) {
    sigjmp_buf target;
    *aborted = 0;
    if (sigsetjmp(target, 1) != 0) {
        *aborted = 1;
        return NULL;
    }
    guard_message[0] = '\0';
    guard_target = &target;
    VipsImage *out = cvips_kernel_node(in, kernel, cancelled, closed, failed, closed_context);
    guard_target = NULL;
    return out;
}
