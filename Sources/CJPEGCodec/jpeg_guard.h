#ifndef JPEG_GUARD_H
#define JPEG_GUARD_H

// How the codec's C files catch libjpeg's errors and warnings (private to CJPEGCodec).

#include <setjmp.h>
#include <stdio.h>
#include <jpeglib.h>

// libjpeg calls error_exit on a fatal error: jump back to the call that started it.
typedef struct {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    int warnings;
    char *error;
    size_t error_size;
} guard;

static void on_error(j_common_ptr info) {
    guard *g = (guard *)info->err;
    char message[JMSG_LENGTH_MAX];
    info->err->format_message(info, message);
    snprintf(g->error, g->error_size, "%s", message);
    longjmp(g->jump, 1);
}

// Level -1 is a warning (corrupt data libjpeg works around); trace messages are not counted.
static void on_message(j_common_ptr info, int level) {
    guard *g = (guard *)info->err;
    if (level < 0) {
        if (g->warnings == 0) {
            char message[JMSG_LENGTH_MAX];
            info->err->format_message(info, message);
            snprintf(g->error, g->error_size, "%s", message);
        }
        g->warnings++;
    }
}

static void arm(guard *g, char *error, size_t error_size) {
    jpeg_std_error(&g->manager);
    g->manager.error_exit = on_error;
    g->manager.emit_message = on_message;
    g->warnings = 0;
    g->error = error;
    g->error_size = error_size;
    if (error_size > 0) error[0] = 0;
}

#endif
