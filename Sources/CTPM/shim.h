#ifndef PINGCLI_CTPM_SHIM_H
#define PINGCLI_CTPM_SHIM_H
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <tss2/tss2_esys.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_tctildr.h>

/* tpm2-tss's ESYS (libtss2-esys.so.0), its TCTI loader (libtss2-tctildr.so.0) and its marshalling
   library (libtss2-mu.so.0) are loaded with dlopen only when a device step or a TPM-sealed secret needs
   the TPM: `pingcli token --raw` maps none of them. Only Debian's libtss2-dev headers are needed to
   build. The wrappers below keep ESYS's unions in C; PingCrypto/TPM2.swift is the one Swift file that
   calls them. Every wrapper returns the TSS2_RC of the call that failed (0: success). */

typedef struct {
    __typeof__(Tss2_TctiLdr_Initialize) *tctildr_initialize;
    __typeof__(Tss2_TctiLdr_Finalize) *tctildr_finalize;
    __typeof__(Esys_Initialize) *initialize;
    __typeof__(Esys_Finalize) *finalize;
    __typeof__(Esys_CreatePrimary) *create_primary;
    __typeof__(Esys_Create) *create;
    __typeof__(Esys_Load) *load;
    __typeof__(Esys_Sign) *sign;
    __typeof__(Esys_Unseal) *unseal;
    __typeof__(Esys_TR_SetAuth) *set_auth;
    __typeof__(Esys_FlushContext) *flush;
    __typeof__(Esys_GetCapability) *get_capability;
    __typeof__(Esys_Free) *free;
    __typeof__(Tss2_MU_TPM2B_PUBLIC_Marshal) *public_marshal;
    __typeof__(Tss2_MU_TPM2B_PUBLIC_Unmarshal) *public_unmarshal;
    __typeof__(Tss2_MU_TPM2B_PRIVATE_Marshal) *private_marshal;
    __typeof__(Tss2_MU_TPM2B_PRIVATE_Unmarshal) *private_unmarshal;
} pingcli_tpm_api;

static inline pingcli_tpm_api *pingcli_tpm_table(void) {
    static pingcli_tpm_api table;
    return &table;
}

/* 0 not tried, 1 ready, -1 a library or symbol missing. */
static inline int *pingcli_tpm_state(void) {
    static int state;
    return &state;
}

/* Errors for the wrappers' own failures, outside every TSS layer. */
#define PINGCLI_TPM_RC_UNAVAILABLE 0xFF000001u
#define PINGCLI_TPM_RC_BLOB 0xFF000002u
#define PINGCLI_TPM_RC_SPACE 0xFF000003u

/* The dictionary-attack properties (their macros are expressions Swift does not import). */
static const TPM2_PT pingcli_tpm_pt_lockout_counter = TPM2_PT_LOCKOUT_COUNTER;
static const TPM2_PT pingcli_tpm_pt_max_auth_fail = TPM2_PT_MAX_AUTH_FAIL;
static const TPM2_PT pingcli_tpm_pt_lockout_interval = TPM2_PT_LOCKOUT_INTERVAL;

static inline int pingcli_tpm_load(void) {
    int *state = pingcli_tpm_state();
    if (*state != 0) return *state;
    /* tpm2-tss logs its errors to stderr unless told otherwise; pingcli says what failed in one line. */
    setenv("TSS2_LOG", "all+NONE", 0);
    pingcli_tpm_api *api = pingcli_tpm_table();
    void *mu = dlopen("libtss2-mu.so.0", RTLD_NOW | RTLD_LOCAL);
    void *esys = dlopen("libtss2-esys.so.0", RTLD_NOW | RTLD_LOCAL);
    void *tctildr = dlopen("libtss2-tctildr.so.0", RTLD_NOW | RTLD_LOCAL);
    if (mu == NULL || esys == NULL || tctildr == NULL) { *state = -1; return *state; }
#define PINGCLI_TPM_SYMBOL(library, field, name)                          \
    *(void **)(&api->field) = dlsym(library, name);                       \
    if (api->field == NULL) { *state = -1; return *state; }
    PINGCLI_TPM_SYMBOL(tctildr, tctildr_initialize, "Tss2_TctiLdr_Initialize")
    PINGCLI_TPM_SYMBOL(tctildr, tctildr_finalize, "Tss2_TctiLdr_Finalize")
    PINGCLI_TPM_SYMBOL(esys, initialize, "Esys_Initialize")
    PINGCLI_TPM_SYMBOL(esys, finalize, "Esys_Finalize")
    PINGCLI_TPM_SYMBOL(esys, create_primary, "Esys_CreatePrimary")
    PINGCLI_TPM_SYMBOL(esys, create, "Esys_Create")
    PINGCLI_TPM_SYMBOL(esys, load, "Esys_Load")
    PINGCLI_TPM_SYMBOL(esys, sign, "Esys_Sign")
    PINGCLI_TPM_SYMBOL(esys, unseal, "Esys_Unseal")
    PINGCLI_TPM_SYMBOL(esys, set_auth, "Esys_TR_SetAuth")
    PINGCLI_TPM_SYMBOL(esys, flush, "Esys_FlushContext")
    PINGCLI_TPM_SYMBOL(esys, get_capability, "Esys_GetCapability")
    PINGCLI_TPM_SYMBOL(esys, free, "Esys_Free")
    PINGCLI_TPM_SYMBOL(mu, public_marshal, "Tss2_MU_TPM2B_PUBLIC_Marshal")
    PINGCLI_TPM_SYMBOL(mu, public_unmarshal, "Tss2_MU_TPM2B_PUBLIC_Unmarshal")
    PINGCLI_TPM_SYMBOL(mu, private_marshal, "Tss2_MU_TPM2B_PRIVATE_Marshal")
    PINGCLI_TPM_SYMBOL(mu, private_unmarshal, "Tss2_MU_TPM2B_PRIVATE_Unmarshal")
#undef PINGCLI_TPM_SYMBOL
    *state = 1;
    return *state;
}

/* A connection through the TCTI `conf` (tpm2-tools' syntax, "swtpm:host=…,port=…"; NULL: the
   loader's default). */
typedef struct {
    TSS2_TCTI_CONTEXT *tcti;
    ESYS_CONTEXT *esys;
} pingcli_tpm_connection;

static inline TSS2_RC pingcli_tpm_open(const char *conf, pingcli_tpm_connection *connection) {
    if (pingcli_tpm_load() != 1) return PINGCLI_TPM_RC_UNAVAILABLE;
    pingcli_tpm_api *api = pingcli_tpm_table();
    connection->tcti = NULL;
    connection->esys = NULL;
    TSS2_RC rc = api->tctildr_initialize(conf, &connection->tcti);
    if (rc != TSS2_RC_SUCCESS) return rc;
    rc = api->initialize(&connection->esys, connection->tcti, NULL);
    if (rc != TSS2_RC_SUCCESS) {
        api->tctildr_finalize(&connection->tcti);
        return rc;
    }
    return TSS2_RC_SUCCESS;
}

static inline void pingcli_tpm_close(pingcli_tpm_connection *connection) {
    pingcli_tpm_api *api = pingcli_tpm_table();
    if (connection->esys != NULL) api->finalize(&connection->esys);
    if (connection->tcti != NULL) api->tctildr_finalize(&connection->tcti);
}

static inline void pingcli_tpm_flush(pingcli_tpm_connection *connection, ESYS_TR handle) {
    if (handle != ESYS_TR_NONE) pingcli_tpm_table()->flush(connection->esys, handle);
}

/* The first entry TPM2_GetCapability gives for `capability` from `property` on, copied out of ESAPI's
   allocation (which is freed here). */
static inline TSS2_RC pingcli_tpm_capability(
    pingcli_tpm_connection *connection, TPM2_CAP capability, UINT32 property, TPMU_CAPABILITIES *first) {
    pingcli_tpm_api *api = pingcli_tpm_table();
    TPMS_CAPABILITY_DATA *data = NULL;
    TPMI_YES_NO more = 0;
    TSS2_RC rc = api->get_capability(connection->esys, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, capability, property, 1,
        &more, &data);
    if (rc != TSS2_RC_SUCCESS) return rc;
    *first = data->data;
    api->free(data);
    return TSS2_RC_SUCCESS;
}

/* One TPM property (TPM2_PT_LOCKOUT_COUNTER, TPM2_PT_MAX_AUTH_FAIL, TPM2_PT_LOCKOUT_INTERVAL, …). */
static inline TSS2_RC pingcli_tpm_property(pingcli_tpm_connection *connection, TPM2_PT property, uint32_t *value) {
    TPMU_CAPABILITIES data;
    TSS2_RC rc = pingcli_tpm_capability(connection, TPM2_CAP_TPM_PROPERTIES, property, &data);
    if (rc != TSS2_RC_SUCCESS) return rc;
    if (data.tpmProperties.count < 1 || data.tpmProperties.tpmProperty[0].property != property) return PINGCLI_TPM_RC_BLOB;
    *value = data.tpmProperties.tpmProperty[0].value;
    return TSS2_RC_SUCCESS;
}

/* Whether the TPM implements `algorithm` (TPM2_CAP_ALGS). */
static inline TSS2_RC pingcli_tpm_has_algorithm(pingcli_tpm_connection *connection, TPM2_ALG_ID algorithm, int *has) {
    TPMU_CAPABILITIES data;
    TSS2_RC rc = pingcli_tpm_capability(connection, TPM2_CAP_ALGS, algorithm, &data);
    if (rc == TSS2_RC_SUCCESS) *has = data.algorithms.count >= 1 && data.algorithms.algProperties[0].alg == algorithm;
    return rc;
}

/* Whether the TPM has the NIST P-256 curve (TPM2_CAP_ECC_CURVES). */
static inline TSS2_RC pingcli_tpm_has_p256(pingcli_tpm_connection *connection, int *has) {
    TPMU_CAPABILITIES data;
    TSS2_RC rc = pingcli_tpm_capability(connection, TPM2_CAP_ECC_CURVES, TPM2_ECC_NIST_P256, &data);
    if (rc == TSS2_RC_SUCCESS) *has = data.eccCurves.count >= 1 && data.eccCurves.eccCurves[0] == TPM2_ECC_NIST_P256;
    return rc;
}

#include "objects.h"

#endif
