#ifndef PINGCLI_CPLATFORM_SHIM_H
#define PINGCLI_CPLATFORM_SHIM_H
#include <stddef.h>
#include <sys/prctl.h>

/* memmem is a GNU extension that the Glibc module does not export. */
extern void *memmem(const void *haystack, size_t haystack_length, const void *needle, size_t needle_length);

/* prctl is variadic, which Swift cannot call; these typed wrappers can be. Header only: nothing to link. */

/* Marks the process non-dumpable (PR_SET_DUMPABLE 0), as ssh-agent and gpg-agent do: no core file, and
   no ptrace or /proc/PID/mem access by other processes of the same user. Returns 0 on success. */
static inline int pingcli_set_non_dumpable(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }

/* 1 when the process may dump core and be traced by its user, 0 when not, -1 on error. */
static inline int pingcli_get_dumpable(void) { return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0); }

#endif
