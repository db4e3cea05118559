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
#include <stdlib.h>
#include <string.h>

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

// The Swift runtime's crash catcher (its backtracer) set itself up at every start: a static constructor
// of the runtime looked for a `swift-backtrace` program beside the executable (eight `stat`s of
// directories that do not exist), asked whether stdout was a terminal (two `ioctl`s), and, had it found
// the program, would have caught the crash signals, whose handler prints registers and the memory they
// point to: token bytes. pingcli never wants it (`PingCLI.hardenProcess`). The runtime reads its
// settings from SWIFT_BACKTRACE in `environ` when that constructor runs; this constructor, whose priority
// puts it ahead of every constructor of default priority (the runtime's, linked statically into the
// release binary), points `environ` at a copy whose SWIFT_BACKTRACE turns it off and names the program,
// so nothing is looked for or asked. main.swift points `environ` back at the process's own array
// (`pingcli_restore_environment`) before anything else: programs pingcli starts see the environment
// unchanged. With a shared Swift runtime (debug builds) the runtime's constructor runs first and this
// changes nothing: `hardenProcess` then resets the signals if it finds a handler.
extern char **environ;
static char quiet_backtracer[] = "SWIFT_BACKTRACE=enable=no,interactive=no,color=no,swift-backtrace=";
static char **process_environ = NULL;
static char **quiet_environ = NULL;

__attribute__((constructor(101))) static void pingcli_quiet_backtracer(void) {
  if (environ == NULL) return;
  size_t count = 0;
  while (environ[count] != NULL) count++;
  char **copy = malloc((count + 2) * sizeof(char *));
  if (copy == NULL) return;
  size_t kept = 0;
  for (size_t index = 0; index < count; index++) {
    if (strncmp(environ[index], "SWIFT_BACKTRACE=", 16) != 0) copy[kept++] = environ[index];
  }
  copy[kept++] = quiet_backtracer;
  copy[kept] = NULL;
  process_environ = environ;
  quiet_environ = environ = copy;
}

void pingcli_restore_environment(void) {
  if (process_environ == NULL) return;
  // Nothing set a variable since (which would have given `environ` another array): put the process's back.
  // Else at least the setting made here goes (nothing in pingcli sets a variable before main).
  if (environ == quiet_environ) {
    environ = process_environ;
  } else {
    unsetenv("SWIFT_BACKTRACE");
  }
  free(quiet_environ);
  process_environ = quiet_environ = NULL;
}
