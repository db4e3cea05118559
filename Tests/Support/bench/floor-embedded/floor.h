/* What the Embedded Swift floor (floor.swift) calls: libsodium, and open(2) without its variadic form. */
#include <fcntl.h>
#include <sodium.h>
#include <unistd.h>

static inline int floor_open(const char *path) { return open(path, O_RDONLY | O_CLOEXEC); }
