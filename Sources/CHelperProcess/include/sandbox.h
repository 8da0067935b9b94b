// The sandbox an isolated plugin helper enters once its plugin's library is loaded: a seccomp
// filter (no programs, processes, sockets, files opened for writing or changed, signals to other
// processes, tracing), Landlock where the kernel has it (files readable only inside the plugin's
// folder, no TCP, no signals out), no new privileges, and resource limits.
#ifndef WORKBENCH_SANDBOX_H
#define WORKBENCH_SANDBOX_H

#include <stddef.h>
#include <stdint.h>

// What this machine's kernel offers: seccomp filters (1 or 0) and Landlock's ABI (0: none).
typedef struct {
    int32_t seccomp;
    int32_t landlock_abi;
} wbh_sandbox_support;

wbh_sandbox_support wbh_sandbox_probe(void);

// Confines the calling process for good. `readable_folder`: the one folder files may be read
// from (with Landlock). `address_space`: bytes of address space allowed beyond what is mapped
// now (0: no limit). Returns the Landlock ABI used (0: none), or -1 with a message.
int32_t wbh_sandbox_enter(const char *readable_folder, uint64_t address_space, char *message, size_t capacity);

// The system call the sandbox refused most recently since the last call, or -1; clears it.
long wbh_sandbox_take_refusal(void);

// The refused call's name ("execve") and what it would have done ("run a program").
const char *wbh_sandbox_call_name(long number);
const char *wbh_sandbox_call_action(long number);

#endif
