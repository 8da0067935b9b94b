#define _GNU_SOURCE
#include "helper_process.h"
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

extern char **environ;

int wbh_memory_file(const char *name) {
    return memfd_create(name, MFD_CLOEXEC);
}

int wbh_pipe(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

pid_t wbh_spawn(const char *path, char *const argv[], int socket_fd, int memory_fd, int output_fd) {
    // Copies above 4, so that no dup2 below overwrites another's source or is a no-op that
    // would keep close-on-exec.
    int socket_copy = fcntl(socket_fd, F_DUPFD_CLOEXEC, 5);
    int memory_copy = fcntl(memory_fd, F_DUPFD_CLOEXEC, 5);
    int output_copy = fcntl(output_fd, F_DUPFD_CLOEXEC, 5);
    if (socket_copy < 0 || memory_copy < 0 || output_copy < 0) {
        int saved = errno;
        if (socket_copy >= 0) close(socket_copy);
        if (memory_copy >= 0) close(memory_copy);
        if (output_copy >= 0) close(output_copy);
        errno = saved;
        return -1;
    }
    socket_fd = socket_copy;
    memory_fd = memory_copy;
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int made = posix_spawn_file_actions_init(&actions) == 0;
    if (!made || posix_spawnattr_init(&attributes) != 0) {
        if (made) posix_spawn_file_actions_destroy(&actions);
        close(socket_copy);
        close(memory_copy);
        close(output_copy);
        errno = ENOMEM;
        return -1;
    }
    // What a kernel prints goes to the host, which passes it on to its standard error: never
    // into the workbench's standard output (JSON lines, item lines). Nothing to read from.
    // dup2 clears close-on-exec on the copies, so exactly 0 to 4 survive the exec. A helper
    // started without these would talk on the wrong descriptors, so any refusal stops here.
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    int prepared = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    if (prepared == 0) prepared = posix_spawn_file_actions_adddup2(&actions, output_copy, 1);
    if (prepared == 0) prepared = posix_spawn_file_actions_adddup2(&actions, output_copy, 2);
    if (prepared == 0) prepared = posix_spawn_file_actions_adddup2(&actions, socket_fd, 3);
    if (prepared == 0) prepared = posix_spawn_file_actions_adddup2(&actions, memory_fd, 4);
    if (prepared == 0) prepared = posix_spawn_file_actions_addclosefrom_np(&actions, 5);
    if (prepared == 0) prepared = posix_spawnattr_setsigdefault(&attributes, &all);
    if (prepared == 0) prepared = posix_spawnattr_setsigmask(&attributes, &none);
    if (prepared == 0) prepared = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    pid_t pid = -1;
    int status = prepared != 0 ? prepared : posix_spawn(&pid, path, &actions, &attributes, argv, environ);
    // Destroying and closing what this function made cannot lose anything: nothing was written
    // through the copies, and the caller keeps its own descriptors.
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    close(socket_copy);
    close(memory_copy);
    close(output_copy);
    if (status != 0) {
        errno = status;
        return -1;
    }
    return pid;
}
