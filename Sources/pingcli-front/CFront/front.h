/* What the front (Sources/pingcli-front) calls in C: libsodium (linked in statically), and the few system
   calls Swift cannot call directly (variadic open and prctl) or whose constants are macros. The front's only
   C file: everything it asks of libc and libsodium is declared or wrapped here. */
#ifndef PINGCLI_FRONT_H
#define PINGCLI_FRONT_H
#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/keyctl.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* libsodium's own picks of its fastest code for the primitives the front uses, as sodium_init makes them,
   without the random generator's seeding (a cache hit draws no randomness). In the static archive. */
extern int _sodium_runtime_get_cpu_features(void);
extern int _crypto_generichash_blake2b_pick_best_implementation(void);
extern int _crypto_onetimeauth_poly1305_pick_best_implementation(void);
extern int _crypto_stream_chacha20_pick_best_implementation(void);

static inline void front_ready_sodium(void) {
    _sodium_runtime_get_cpu_features();
    _crypto_generichash_blake2b_pick_best_implementation();
    _crypto_onetimeauth_poly1305_pick_best_implementation();
    _crypto_stream_chacha20_pick_best_implementation();
}

/* The full binary's hardening, before any secret is read: no core file, no ptrace by the same user. */
static inline void front_harden(void) {
    (void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    struct rlimit none = {0, 0};
    (void)setrlimit(RLIMIT_CORE, &none);
}

/* The full binary's open of a file it reads: no final symbolic link, no blocking (a FIFO), closed on exec. */
static inline int front_open(const char *path) { return open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC); }

static inline int front_errno(void) { return errno; }

/* The effective user from the auxiliary vector (no system call), as the full binary asks it. */
static inline uid_t front_effective_user(void) {
    errno = 0;
    unsigned long user = getauxval(AT_EUID);
    return user == 0 && errno == ENOENT ? geteuid() : (uid_t)user;
}

/* Wall-clock seconds since 1970, as the full binary's clock reads them. */
static inline double front_now(void) {
    struct timespec spec;
    clock_gettime(CLOCK_REALTIME, &spec);
    return (double)spec.tv_sec + (double)spec.tv_nsec / 1e9;
}

static inline char **front_environment(void) { return environ; }

/* The front's own path, for the full binary beside it: its real path (/proc/self/exe), else (no /proc, as in
   some containers) the name it was run by (AT_EXECFN). The length written, 0 when neither is known. */
static inline long front_own_path(char *buffer, size_t size) {
    ssize_t length = readlink("/proc/self/exe", buffer, size - 1);
    if (length > 0) return length;
    const char *name = (const char *)getauxval(AT_EXECFN);
    if (name == NULL) return 0;
    size_t count = strlen(name);
    if (count >= size) return 0;
    memcpy(buffer, name, count);
    return (long)count;
}

/* The kernel keyring's copy of the cache key (the full binary's KernelKeyring): a "user" key found in the
   session keyring, and its payload. syscall(2) is variadic. */
static inline long front_keyctl_search_session(const char *description) {
    return syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING, "user", description, 0);
}
static inline long front_keyctl_read(long key, void *buffer, size_t length) { return syscall(SYS_keyctl, KEYCTL_READ, key, buffer, length); }
#endif
