// Nothing to call: this target only replaces the Swift runtime's argv finder (see arguments.c).
#ifndef PINGCLI_CARGUMENTS_H
#define PINGCLI_CARGUMENTS_H
#endif
