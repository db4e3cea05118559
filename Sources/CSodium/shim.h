#ifndef PINGCLI_CSODIUM_SHIM_H
#define PINGCLI_CSODIUM_SHIM_H
#include <sodium.h>
#endif
