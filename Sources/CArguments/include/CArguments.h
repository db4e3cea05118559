// This target replaces the Swift runtime's argv finder (see arguments.c), and hands main.swift argc and
// argv as glibc gave them.
#ifndef PINGCLI_CARGUMENTS_H
#define PINGCLI_CARGUMENTS_H

// argv as glibc handed it to the program (argc in *count): what `CommandLine.unsafeArgv` gives, without
// the lazily made global behind it (its initialiser is code a start would page in for that alone).
char **pingcli_process_arguments(int *count);

// Puts SWIFT_BACKTRACE back as the process got it (arguments.c turns the runtime's crash catcher off
// before the runtime starts); main.swift calls it first.
void pingcli_restore_environment(void);

#endif
