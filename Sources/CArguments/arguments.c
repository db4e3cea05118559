// `CommandLine.arguments` without reading /proc/self/maps.
//
// On Linux the Swift runtime finds argv with a static constructor that reads /proc/self/maps with sscanf
// to locate the stack and walks back from `environ` (stdlib/public/CommandLineSupport/CommandLine.cpp).
// That constructor ran at every start of pingcli, `--version` included: 0.106 M instructions, a fifth of
// `--version` (docs/performance.md). glibc hands every .init_array function argc and argv, so this file
// takes them there and defines the two functions the standard library calls. Linked as an object file
// ahead of the static libswiftCore.a, it keeps the archive's CommandLine.cpp.o (which defines only these
// two) out of the link. With a dynamic libswiftCore.so (debug builds) the library keeps using its own.
// Should a toolchain ever move more into that object, the link fails with a duplicate symbol: loud,
// never silently wrong.

#include <stddef.h>

static char **captured_argv = NULL;
static int captured_argc = 0;
static char **override_argv = NULL;
static int override_argc = 0;
static char *empty_argv[] = {NULL};

static void pingcli_capture_arguments(int argc, char **argv, char **envp) {
  (void)envp;
  captured_argc = argc;
  captured_argv = argv;
}

__attribute__((section(".init_array"), used)) static void (*pingcli_capture_arguments_entry)(int, char **, char **) =
    pingcli_capture_arguments;

// The same contract as the runtime's: the override first, else argv and argc as the process got them.
__attribute__((swiftcall, visibility("hidden"))) char **_swift_stdlib_getUnsafeArgvArgc(int *outArgLen) {
  if (override_argv != NULL) {
    *outArgLen = override_argc;
    return override_argv;
  }
  if (captured_argv == NULL) {
    *outArgLen = 0;
    return empty_argv;
  }
  *outArgLen = captured_argc;
  return captured_argv;
}

__attribute__((swiftcall, visibility("hidden"))) void _swift_stdlib_overrideUnsafeArgvArgc(char **argv, int argc) {
  override_argv = argv;
  override_argc = argc;
}

char **pingcli_process_arguments(int *count) {
  if (captured_argv == NULL) {
    *count = 0;
    return empty_argv;
  }
  *count = captured_argc;
  return captured_argv;
}
