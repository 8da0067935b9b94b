#define _GNU_SOURCE
#include "sandbox.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/ucontext.h>
#include <unistd.h>

#if defined(__x86_64__)
#define WBH_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define WBH_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#error "the plugin sandbox knows x86_64 and aarch64 only"
#endif

// ---- What is refused ---------------------------------------------------------------------------

enum { PROGRAM, PROCESS, NETWORK, WRITE, SIGNAL, TRACE, SYSTEM };

static const char *const actions[] = {
    [PROGRAM] = "run a program",
    [PROCESS] = "start a process",
    [NETWORK] = "use the network",
    [WRITE] = "create, change or remove a file",
    [SIGNAL] = "signal another process",
    [TRACE] = "trace or inspect another process",
    [SYSTEM] = "change the system or escape the sandbox",
};

typedef struct {
    long number;
    const char *name;
    int action;
} refused_call;

// Refused whatever their arguments. (clone, open, openat, kill and a few more are refused for
// some arguments only: see the filter below.)
static const refused_call always[] = {
    {SYS_execve, "execve", PROGRAM}, {SYS_execveat, "execveat", PROGRAM},
#ifdef SYS_fork
    {SYS_fork, "fork", PROCESS},
#endif
#ifdef SYS_vfork
    {SYS_vfork, "vfork", PROCESS},
#endif
    {SYS_socket, "socket", NETWORK}, {SYS_socketpair, "socketpair", NETWORK}, {SYS_connect, "connect", NETWORK},
    {SYS_bind, "bind", NETWORK}, {SYS_listen, "listen", NETWORK}, {SYS_accept, "accept", NETWORK},
    {SYS_accept4, "accept4", NETWORK},
#ifdef SYS_creat
    {SYS_creat, "creat", WRITE},
#endif
#ifdef SYS_rename
    {SYS_rename, "rename", WRITE}, {SYS_unlink, "unlink", WRITE}, {SYS_mkdir, "mkdir", WRITE}, {SYS_rmdir, "rmdir", WRITE},
    {SYS_link, "link", WRITE}, {SYS_symlink, "symlink", WRITE}, {SYS_chmod, "chmod", WRITE}, {SYS_chown, "chown", WRITE},
    {SYS_lchown, "lchown", WRITE}, {SYS_mknod, "mknod", WRITE}, {SYS_utime, "utime", WRITE}, {SYS_utimes, "utimes", WRITE},
    {SYS_futimesat, "futimesat", WRITE},
#endif
    {SYS_openat2, "openat2", WRITE}, {SYS_renameat, "renameat", WRITE}, {SYS_renameat2, "renameat2", WRITE},
    {SYS_unlinkat, "unlinkat", WRITE}, {SYS_mkdirat, "mkdirat", WRITE}, {SYS_linkat, "linkat", WRITE},
    {SYS_symlinkat, "symlinkat", WRITE}, {SYS_fchmod, "fchmod", WRITE}, {SYS_fchmodat, "fchmodat", WRITE},
    {SYS_fchown, "fchown", WRITE}, {SYS_fchownat, "fchownat", WRITE}, {SYS_truncate, "truncate", WRITE},
    {SYS_mknodat, "mknodat", WRITE}, {SYS_utimensat, "utimensat", WRITE}, {SYS_setxattr, "setxattr", WRITE},
    {SYS_lsetxattr, "lsetxattr", WRITE}, {SYS_fsetxattr, "fsetxattr", WRITE}, {SYS_removexattr, "removexattr", WRITE},
    {SYS_lremovexattr, "lremovexattr", WRITE}, {SYS_fremovexattr, "fremovexattr", WRITE},
    {SYS_name_to_handle_at, "name_to_handle_at", WRITE}, {SYS_open_by_handle_at, "open_by_handle_at", WRITE},
    {SYS_tkill, "tkill", SIGNAL}, {SYS_pidfd_send_signal, "pidfd_send_signal", SIGNAL}, {SYS_pidfd_open, "pidfd_open", SIGNAL},
    {SYS_pidfd_getfd, "pidfd_getfd", TRACE}, {SYS_ptrace, "ptrace", TRACE}, {SYS_process_vm_readv, "process_vm_readv", TRACE},
    {SYS_process_vm_writev, "process_vm_writev", TRACE}, {SYS_kcmp, "kcmp", TRACE},
    {SYS_perf_event_open, "perf_event_open", TRACE}, {SYS_bpf, "bpf", SYSTEM},
    {SYS_io_uring_setup, "io_uring_setup", SYSTEM}, {SYS_io_uring_enter, "io_uring_enter", SYSTEM},
    {SYS_io_uring_register, "io_uring_register", SYSTEM}, {SYS_userfaultfd, "userfaultfd", SYSTEM},
    {SYS_unshare, "unshare", SYSTEM}, {SYS_setns, "setns", SYSTEM}, {SYS_mount, "mount", SYSTEM},
    {SYS_umount2, "umount2", SYSTEM}, {SYS_pivot_root, "pivot_root", SYSTEM}, {SYS_chroot, "chroot", SYSTEM},
    {SYS_keyctl, "keyctl", SYSTEM}, {SYS_add_key, "add_key", SYSTEM}, {SYS_request_key, "request_key", SYSTEM},
    {SYS_fanotify_init, "fanotify_init", SYSTEM}, {SYS_shmget, "shmget", SYSTEM}, {SYS_msgget, "msgget", SYSTEM},
    {SYS_semget, "semget", SYSTEM}, {SYS_mq_open, "mq_open", SYSTEM}, {SYS_personality, "personality", SYSTEM},
    {SYS_setuid, "setuid", SYSTEM}, {SYS_setgid, "setgid", SYSTEM}, {SYS_setreuid, "setreuid", SYSTEM},
    {SYS_setregid, "setregid", SYSTEM}, {SYS_setresuid, "setresuid", SYSTEM}, {SYS_setresgid, "setresgid", SYSTEM},
    {SYS_setgroups, "setgroups", SYSTEM}, {SYS_capset, "capset", SYSTEM}, {SYS_reboot, "reboot", SYSTEM},
    {SYS_kexec_load, "kexec_load", SYSTEM}, {SYS_init_module, "init_module", SYSTEM},
    {SYS_finit_module, "finit_module", SYSTEM}, {SYS_delete_module, "delete_module", SYSTEM},
    {SYS_swapon, "swapon", SYSTEM}, {SYS_swapoff, "swapoff", SYSTEM}, {SYS_acct, "acct", SYSTEM},
    {SYS_settimeofday, "settimeofday", SYSTEM}, {SYS_clock_settime, "clock_settime", SYSTEM},
    {SYS_adjtimex, "adjtimex", SYSTEM}, {SYS_clock_adjtime, "clock_adjtime", SYSTEM},
    {SYS_sethostname, "sethostname", SYSTEM}, {SYS_setdomainname, "setdomainname", SYSTEM},
    {SYS_quotactl, "quotactl", SYSTEM},
};

// Refused for some arguments (a process rather than a thread, a file opened for writing, a
// signal to another process, a new handler for the sandbox's own signal).
static const refused_call sometimes[] = {
    {SYS_clone, "clone", PROCESS}, {SYS_clone3, "clone3", PROCESS},
#ifdef SYS_open
    {SYS_open, "open", WRITE},
#endif
    {SYS_openat, "openat", WRITE}, {SYS_kill, "kill", SIGNAL}, {SYS_tgkill, "tgkill", SIGNAL},
    {SYS_rt_sigqueueinfo, "rt_sigqueueinfo", SIGNAL}, {SYS_rt_tgsigqueueinfo, "rt_tgsigqueueinfo", SIGNAL},
    {SYS_rt_sigaction, "rt_sigaction", SYSTEM},
};

static const refused_call *find(long number) {
    for (size_t i = 0; i < sizeof always / sizeof always[0]; i++) if (always[i].number == number) return &always[i];
    for (size_t i = 0; i < sizeof sometimes / sizeof sometimes[0]; i++) if (sometimes[i].number == number) return &sometimes[i];
    return NULL;
}

const char *wbh_sandbox_call_name(long number) {
    const refused_call *call = find(number);
    return call ? call->name : "a system call";
}

const char *wbh_sandbox_call_action(long number) {
    const refused_call *call = find(number);
    return call ? actions[call->action] : "make a system call the sandbox refuses";
}

// ---- The refusal: SIGSYS, answered with EPERM --------------------------------------------------

static long last_refusal = -1;

// A refused call does not happen; it returns -EPERM to the kernel that made it, and the helper
// fails the item naming the call (a kernel may ignore the error, the host does not).
static void on_refusal(int signal, siginfo_t *info, void *context) {
    (void)signal;
    ucontext_t *registers = context;
    __atomic_store_n(&last_refusal, (long)info->si_syscall, __ATOMIC_RELAXED);
#if defined(__x86_64__)
    registers->uc_mcontext.gregs[REG_RAX] = -EPERM;
#else
    registers->uc_mcontext.regs[0] = (unsigned long long)-EPERM;
#endif
}

long wbh_sandbox_take_refusal(void) {
    return __atomic_exchange_n(&last_refusal, -1, __ATOMIC_RELAXED);
}

// ---- The seccomp filter ------------------------------------------------------------------------

enum { MAX_PROGRAM = 512 };

typedef struct {
    struct sock_filter code[MAX_PROGRAM];
    unsigned short count;
    int overflow;
} program;

static unsigned short emit(program *p, unsigned short code, unsigned int k, unsigned char jt, unsigned char jf) {
    if (p->count >= MAX_PROGRAM) {
        p->overflow = 1;
        return p->count;
    }
    p->code[p->count] = (struct sock_filter){code, jt, jf, k};
    return p->count++;
}

#define ARG_LOW(n) (unsigned int)offsetof(struct seccomp_data, args[n])
#define ARG_HIGH(n) (unsigned int)(offsetof(struct seccomp_data, args[n]) + 4)
static const unsigned int TRAP = SECCOMP_RET_TRAP, ALLOW = SECCOMP_RET_ALLOW;

// `if (nr == number) { block }`: returns where the skip must be patched once the block is out.
static unsigned short begin_case(program *p, long number) {
    emit(p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), 0, 0);
    return emit(p, BPF_JMP | BPF_JEQ | BPF_K, (unsigned int)number, 0, 0);
}

static void end_case(program *p, unsigned short at) {
    if (p->overflow) return;
    p->code[at].jf = (unsigned char)(p->count - at - 1);
}

// Allows the call when argument `arg` (64 bits) equals `value`; else refuses it.
static void allow_if_argument_is(program *p, int arg, unsigned int value) {
    emit(p, BPF_LD | BPF_W | BPF_ABS, ARG_LOW(arg), 0, 0);
    emit(p, BPF_JMP | BPF_JEQ | BPF_K, value, 0, 3);
    emit(p, BPF_LD | BPF_W | BPF_ABS, ARG_HIGH(arg), 0, 0);
    emit(p, BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1);
    emit(p, BPF_RET | BPF_K, ALLOW, 0, 0);
    emit(p, BPF_RET | BPF_K, TRAP, 0, 0);
}

// Refuses the call when argument `arg` has any of `bits`; else allows it.
static void refuse_if_argument_has(program *p, int arg, unsigned int bits) {
    emit(p, BPF_LD | BPF_W | BPF_ABS, ARG_LOW(arg), 0, 0);
    emit(p, BPF_JMP | BPF_JSET | BPF_K, bits, 0, 1);
    emit(p, BPF_RET | BPF_K, TRAP, 0, 0);
    emit(p, BPF_RET | BPF_K, ALLOW, 0, 0);
}

static void build(program *p, unsigned int self) {
    const unsigned int writing = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND | __O_TMPFILE;
    emit(p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch), 0, 0);
    emit(p, BPF_JMP | BPF_JEQ | BPF_K, WBH_AUDIT_ARCH, 1, 0);
    emit(p, BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS, 0, 0);
    emit(p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), 0, 0);
#if defined(__x86_64__)
    // The x32 system calls: another numbering of the same calls.
    emit(p, BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1);
    emit(p, BPF_RET | BPF_K, TRAP, 0, 0);
#endif
    for (size_t i = 0; i < sizeof always / sizeof always[0]; i++) {
        emit(p, BPF_JMP | BPF_JEQ | BPF_K, (unsigned int)always[i].number, 0, 1);
        emit(p, BPF_RET | BPF_K, TRAP, 0, 0);
    }
    // clone3 passes its flags in memory a filter cannot read: glibc falls back to clone.
    emit(p, BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1);
    emit(p, BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS, 0, 0);
    // Threads, yes; processes, no.
    unsigned short at = begin_case(p, SYS_clone);
    emit(p, BPF_LD | BPF_W | BPF_ABS, ARG_LOW(0), 0, 0);
    emit(p, BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1);
    emit(p, BPF_RET | BPF_K, ALLOW, 0, 0);
    emit(p, BPF_RET | BPF_K, TRAP, 0, 0);
    end_case(p, at);
#ifdef SYS_open
    at = begin_case(p, SYS_open);
    refuse_if_argument_has(p, 1, writing);
    end_case(p, at);
#endif
    at = begin_case(p, SYS_openat);
    refuse_if_argument_has(p, 2, writing);
    end_case(p, at);
    const long to_self[] = {SYS_kill, SYS_tgkill, SYS_rt_sigqueueinfo, SYS_rt_tgsigqueueinfo};
    for (size_t i = 0; i < sizeof to_self / sizeof to_self[0]; i++) {
        at = begin_case(p, to_self[i]);
        allow_if_argument_is(p, 0, self);
        end_case(p, at);
    }
    // The handler that turns a refusal into EPERM stays.
    at = begin_case(p, SYS_rt_sigaction);
    emit(p, BPF_LD | BPF_W | BPF_ABS, ARG_LOW(0), 0, 0);
    emit(p, BPF_JMP | BPF_JEQ | BPF_K, SIGSYS, 0, 1);
    emit(p, BPF_RET | BPF_K, TRAP, 0, 0);
    emit(p, BPF_RET | BPF_K, ALLOW, 0, 0);
    end_case(p, at);
    emit(p, BPF_RET | BPF_K, ALLOW, 0, 0);
}

// ---- Landlock ----------------------------------------------------------------------------------

// The ruleset as the newest ABI knows it; older kernels are given its first 8 or 16 bytes.
typedef struct {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
} ruleset_attributes;

static int landlock_abi(void) {
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    return abi > 0 ? (int)abi : 0;
}

static int enter_landlock(int abi, const char *folder, char *message, size_t capacity) {
    ruleset_attributes attributes = {0};
    attributes.handled_access_fs = (1ull << 13) - 1;           // ABI 1: execute … make symlink
    if (abi >= 2) attributes.handled_access_fs |= 1ull << 13;  // refer
    if (abi >= 3) attributes.handled_access_fs |= 1ull << 14;  // truncate
    if (abi >= 5) attributes.handled_access_fs |= 1ull << 15;  // ioctl on devices
    size_t size = 8;
    if (abi >= 4) {
        attributes.handled_access_net = 1 | 2;                 // bind and connect TCP
        size = 16;
    }
    if (abi >= 6) {
        attributes.scoped = 1 | 2;                             // abstract unix sockets, signals
        size = 24;
    }
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attributes, size, 0);
    if (ruleset < 0) {
        snprintf(message, capacity, "Landlock refused the ruleset: %s", strerror(errno));
        return -1;
    }
    int parent = open(folder, O_PATH | O_CLOEXEC | O_DIRECTORY);
    if (parent < 0) {
        snprintf(message, capacity, "cannot open the plugin's folder %s: %s", folder, strerror(errno));
        close(ruleset);
        return -1;
    }
    struct landlock_path_beneath_attr beneath = {
        .allowed_access = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR,
        .parent_fd = parent,
    };
    int added = (int)syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &beneath, 0);
    int saved = errno;
    close(parent);
    if (added != 0) {
        snprintf(message, capacity, "Landlock refused the plugin's folder: %s", strerror(saved));
        close(ruleset);
        return -1;
    }
    int restricted = (int)syscall(SYS_landlock_restrict_self, ruleset, 0);
    saved = errno;
    close(ruleset);
    if (restricted != 0) {
        snprintf(message, capacity, "Landlock could not be entered: %s", strerror(saved));
        return -1;
    }
    return 0;
}

// ---- Entering ----------------------------------------------------------------------------------

wbh_sandbox_support wbh_sandbox_probe(void) {
    wbh_sandbox_support support = {0, 0};
    // Asking for an action the kernel knows tells whether seccomp filters exist at all.
    unsigned int action = SECCOMP_RET_TRAP;
    support.seccomp = syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0;
    support.landlock_abi = landlock_abi();
    return support;
}

static int limit(int resource, rlim_t value) {
    struct rlimit bound = {value, value};
    struct rlimit now;
    if (getrlimit(resource, &now) == 0 && now.rlim_max != RLIM_INFINITY && now.rlim_max < value) bound.rlim_max = bound.rlim_cur = now.rlim_max;
    return setrlimit(resource, &bound);
}

static uint64_t mapped_bytes(void) {
    FILE *statm = fopen("/proc/self/statm", "r");
    if (!statm) return 0;
    unsigned long long pages = 0;
    if (fscanf(statm, "%llu", &pages) != 1) pages = 0;
    fclose(statm);
    return (uint64_t)pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

int32_t wbh_sandbox_enter(const char *readable_folder, uint64_t address_space, char *message, size_t capacity) {
    message[0] = 0;
    struct sigaction refusal;
    memset(&refusal, 0, sizeof refusal);
    refusal.sa_sigaction = on_refusal;
    refusal.sa_flags = SA_SIGINFO;
    sigemptyset(&refusal.sa_mask);
    if (sigaction(SIGSYS, &refusal, NULL) != 0) {
        snprintf(message, capacity, "cannot handle SIGSYS: %s", strerror(errno));
        return -1;
    }
    // Writing past the limit returns EFBIG instead of ending the process.
    if (signal(SIGXFSZ, SIG_IGN) == SIG_ERR) {
        snprintf(message, capacity, "cannot ignore SIGXFSZ: %s", strerror(errno));
        return -1;
    }
    if (limit(RLIMIT_FSIZE, 0) != 0 || limit(RLIMIT_CORE, 0) != 0 || limit(RLIMIT_NOFILE, 256) != 0) {
        snprintf(message, capacity, "cannot set resource limits: %s", strerror(errno));
        return -1;
    }
    if (address_space > 0 && limit(RLIMIT_AS, (rlim_t)(mapped_bytes() + address_space)) != 0) {
        snprintf(message, capacity, "cannot limit the address space: %s", strerror(errno));
        return -1;
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        snprintf(message, capacity, "cannot set no-new-privileges: %s", strerror(errno));
        return -1;
    }
    int abi = landlock_abi();
    if (abi > 0 && enter_landlock(abi, readable_folder, message, capacity) != 0) return -1;
    static program filter;
    memset(&filter, 0, sizeof filter);
    build(&filter, (unsigned int)getpid());
    if (filter.overflow) {
        snprintf(message, capacity, "the seccomp filter grew past %d instructions", MAX_PROGRAM);
        return -1;
    }
    struct sock_fprog prog = {filter.count, filter.code};
    // TSYNC: every thread of the helper, not only this one.
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) != 0) {
        snprintf(message, capacity, "seccomp refused the filter: %s", strerror(errno));
        return -1;
    }
    return abi;
}
