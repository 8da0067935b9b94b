#define _GNU_SOURCE
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

// libvips prints a failed sanity check ("sanity failure: VipsImage (0x…) bad dimensions" and an
// empty line) with printf just before an assertion, which the guard turns into the item's
// failure ("… stopped on an internal check"): said there, the printed lines are only noise in
// a terminal. C's `stdout` becomes a stream that drops them and passes every other byte on.
static int filtered_fd = -1;
static int dropping_blank = 0;
static const char sanity_prefix[] = "sanity failure: ";

static ssize_t filtered_write(void *cookie, const char *buffer, size_t size) {
    (void) cookie;
    size_t start = 0;
    while (start < size) {
        const char *newline = memchr(buffer + start, '\n', size - start);
        size_t end = newline ? (size_t) (newline - buffer) + 1 : size;
        size_t length = end - start;
        int drop = 0;
        if (length >= sizeof sanity_prefix - 1 && memcmp(buffer + start, sanity_prefix, sizeof sanity_prefix - 1) == 0) {
            drop = 1;
            dropping_blank = 1;
        } else if (dropping_blank && length == 1 && buffer[start] == '\n') {
            drop = 1;
            dropping_blank = 0;
        } else {
            dropping_blank = 0;
        }
        for (size_t written = 0; !drop && written < length;) {
            ssize_t n = write(filtered_fd, buffer + start + written, length - written);
            if (n < 0) return written + start > 0 ? (ssize_t) (start + written) : -1;
            written += (size_t) n;
        }
        start = end;
    }
    return (ssize_t) size;
}

void cvips_filter_stdio_output(int to_stderr) {
    int source = to_stderr ? STDERR_FILENO : STDOUT_FILENO;
    fflush(stdout);
    if (filtered_fd >= 0) {
        // Already filtering: only the destination changes.
        dup2(source, filtered_fd);
        return;
    }
    int descriptor = dup(source);
    if (descriptor < 0) return;
    cookie_io_functions_t functions = { .read = NULL, .write = filtered_write, .seek = NULL, .close = NULL };
    FILE *file = fopencookie(NULL, "w", functions);
    if (file == NULL) {
        close(descriptor);
        return;
    }
    filtered_fd = descriptor;
    // Line buffering, so each printed line reaches the filter whole.
    setvbuf(file, NULL, _IOLBF, 0);
    stdout = file;
}

void cvips_send_stdio_output_to_stderr(void) {
    cvips_filter_stdio_output(1);
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
