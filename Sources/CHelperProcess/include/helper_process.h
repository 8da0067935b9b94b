// What the plugin host needs from Linux that Swift's Glibc module does not show: an anonymous
// shared-memory file and spawning a helper with exactly two inherited descriptors.
#ifndef WORKBENCH_HELPER_PROCESS_H
#define WORKBENCH_HELPER_PROCESS_H

#include <sys/types.h>

// An anonymous file in memory (memfd), closed on exec; -1 with errno on failure.
int wbh_memory_file(const char *name);

// Starts `path` with `argv` (NULL-terminated); the child's standard input is /dev/null, its
// standard output and error both `output_fd`, its descriptors 3 and 4 `socket_fd` and
// `memory_fd`; every other descriptor is closed, signals are at their defaults and unblocked.
// Returns the child's pid, or -1 with errno.
pid_t wbh_spawn(const char *path, char *const argv[], int socket_fd, int memory_fd, int output_fd);

// A pipe whose both ends close on exec: fds[0] to read, fds[1] to write. 0, or -1 with errno.
int wbh_pipe(int fds[2]);

#endif
