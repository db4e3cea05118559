#ifndef PINGCLI_CPLATFORM_SHIM_H
#define PINGCLI_CPLATFORM_SHIM_H
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/auxv.h>
#include <errno.h>
#include <signal.h>
#include <linux/keyctl.h>

/* memmem is a GNU extension that the Glibc module does not export. */
extern void *memmem(const void *haystack, size_t haystack_length, const void *needle, size_t needle_length);

/* prctl is variadic, which Swift cannot call; these typed wrappers can be. Header only: nothing to link. */

/* Marks the process non-dumpable (PR_SET_DUMPABLE 0), as ssh-agent and gpg-agent do: no core file, and
   no ptrace or /proc/PID/mem access by other processes of the same user. Returns 0 on success. */
static inline int pingcli_set_non_dumpable(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }

/* 1 when the process may dump core and be traced by its user, 0 when not, -1 on error. */
static inline int pingcli_get_dumpable(void) { return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0); }

/* 1 when SIGSEGV has an action other than the default (a handler, the Swift runtime's crash catcher
   among them, or SIG_IGN), 0 when it has the default one, 1 when it cannot be asked. */
static inline int pingcli_crash_signal_handled(void) {
    struct sigaction action;
    return sigaction(SIGSEGV, NULL, &action) != 0 || action.sa_handler != SIG_DFL;
}

/* The effective user id the kernel started the program with (AT_EUID of the auxiliary vector): the same
   as geteuid(2) for a program that never changes it, without a system call. geteuid(2) when the vector
   has none. */
static inline uid_t pingcli_effective_user(void) {
    errno = 0;
    unsigned long user = getauxval(AT_EUID);
    return user == 0 && errno == ENOENT ? geteuid() : (uid_t)user;
}

/* The kernel key retention service (keyrings(7)) through syscall(2), which is variadic: no libkeyutils.
   Each returns what the system call returns (-1 and errno on failure). */
static inline long pingcli_add_key(const char *type, const char *description, const void *payload, size_t length,
                                   int keyring) {
    return syscall(SYS_add_key, type, description, payload, length, keyring);
}
/* KEYCTL_SEARCH in the process's session keyring (which grants possession). */
static inline long pingcli_keyctl_search_session(const char *type, const char *description) {
    return syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING, type, description, 0);
}
static inline long pingcli_keyctl_read(long key, void *buffer, size_t length) {
    return syscall(SYS_keyctl, KEYCTL_READ, key, buffer, length);
}
static inline long pingcli_keyctl_update(long key, const void *payload, size_t length) {
    return syscall(SYS_keyctl, KEYCTL_UPDATE, key, payload, length);
}
static inline long pingcli_keyctl_setperm(long key, unsigned int permissions) {
    return syscall(SYS_keyctl, KEYCTL_SETPERM, key, permissions);
}
static inline long pingcli_keyctl_set_timeout(long key, unsigned int seconds) {
    return syscall(SYS_keyctl, KEYCTL_SET_TIMEOUT, key, seconds);
}
static inline long pingcli_keyctl_invalidate(long key) { return syscall(SYS_keyctl, KEYCTL_INVALIDATE, key); }
/* Joins a new session keyring (named, or anonymous for NULL) for the calling thread: the tests use it to
   stand for a login session. */
static inline long pingcli_keyctl_join_session_keyring(const char *name) {
    return syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, name);
}
static const int pingcli_session_keyring = KEY_SPEC_SESSION_KEYRING;

/* The terminal's width in columns (ioctl is variadic too), or 0 when the descriptor is not a terminal. */
static inline int pingcli_terminal_columns(int descriptor) {
    struct winsize size;
    return ioctl(descriptor, TIOCGWINSZ, &size) == 0 ? size.ws_col : 0;
}

#endif
