// A plugin whose kernels try what the sandbox must refuse, for the sandbox tests (compiled by
// them with clang into libHostile.so). On images 41 pixels wide each filter tries one thing and
// then carries on as if nothing happened (ignoring the error it got), except `read`, which fails
// with the error, as a kernel that needs the file would; on other widths they copy their input.
//   write   creates the file `target`            read    reads the file `target`
//   connect connects to 127.0.0.1:`port`         exec    runs /bin/sh -c "touch `target`"
//   kill    sends SIGKILL to its parent          fork    forks; the child creates `target`
#include "workbench_kernel.h"
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

enum { WRITE, READ, CONNECT, EXEC, KILL, FORK };

typedef struct {
    int behaviour;
    char target[512];
    int port;
} hostile;

static int32_t misbehave(const hostile *h, char *message, size_t capacity) {
    switch (h->behaviour) {
    case WRITE: {
        int fd = open(h->target, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            (void)write(fd, "pwned\n", 6);
            close(fd);
        }
        return 0;
    }
    case READ: {
        int fd = open(h->target, O_RDONLY);
        if (fd < 0) {
            snprintf(message, capacity, "could not read %s: %s", h->target, strerror(errno));
            return 1;
        }
        char secret[64];
        (void)read(fd, secret, sizeof secret);
        close(fd);
        return 0;
    }
    case CONNECT: {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)h->port)};
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (fd >= 0) {
            (void)connect(fd, (struct sockaddr *)&address, sizeof address);
            close(fd);
        }
        return 0;
    }
    case EXEC: {
        char command[600];
        snprintf(command, sizeof command, "touch %s", h->target);
        char *const argv[] = {"/bin/sh", "-c", command, NULL};
        (void)execve("/bin/sh", argv, NULL);
        return 0;
    }
    case KILL:
        (void)kill(getppid(), SIGKILL);
        return 0;
    case FORK: {
        pid_t child = fork();
        if (child == 0) {
            int fd = open(h->target, O_WRONLY | O_CREAT, 0644);
            if (fd >= 0) close(fd);
            _exit(0);
        }
        if (child > 0) waitpid(child, NULL, 0);
        return 0;
    }
    }
    return 0;
}

static int32_t process(void *instance, void *state, const wb_image_info *image, const wb_region *region,
                       char *message, size_t capacity) {
    (void)state;
    const hostile *h = instance;
    if (image->width == 41 && misbehave(h, message, capacity) != 0) return 1;
    size_t row = wb_sample_size(image->format) * (size_t)image->bands * (size_t)region->width;
    for (int32_t y = 0; y < region->height; y++) {
        memcpy((uint8_t *)region->out + y * region->out_stride, (const uint8_t *)region->in + y * region->in_stride, row);
    }
    return 0;
}

static void release(void *instance) { free(instance); }

static int32_t make(void *context, const wb_param *params, int32_t count, wb_kernel *kernel, char *message, size_t capacity) {
    hostile *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(message, capacity, "out of memory");
        return 1;
    }
    h->behaviour = (int)(intptr_t)context;
    for (int32_t i = 0; i < count; i++) {
        if (strcmp(params[i].name, "target") == 0 && params[i].text) snprintf(h->target, sizeof h->target, "%s", params[i].text);
        if (strcmp(params[i].name, "port") == 0) h->port = (int)params[i].number;
    }
    memset(kernel, 0, sizeof *kernel);
    kernel->api_version = WB_KERNEL_API_VERSION;
    kernel->name = "hostile";
    kernel->instance = h;
    kernel->process = process;
    kernel->release = release;
    return 0;
}

static const wb_filter filters[] = {
    {"write", (void *)(intptr_t)WRITE, make},     {"read", (void *)(intptr_t)READ, make},
    {"connect", (void *)(intptr_t)CONNECT, make}, {"exec", (void *)(intptr_t)EXEC, make},
    {"kill", (void *)(intptr_t)KILL, make},       {"fork", (void *)(intptr_t)FORK, make},
};

// A library that links no Swift declares no toolchain.
static const wb_plugin plugin = {WB_PLUGIN_API_VERSION, WB_KERNEL_API_VERSION, NULL, "hostile", 6, filters};

const wb_plugin *workbench_plugin(void) { return &plugin; }
