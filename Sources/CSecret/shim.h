#ifndef PINGCLI_CSECRET_SHIM_H
#define PINGCLI_CSECRET_SHIM_H
/* The few libsecret and GLib declarations pingcli's keyring store needs, written out here so that no
   libsecret or GLib header (or library) is needed to build: libsecret-1.so.0 is dlopen'ed by
   Sources/PingCLICore/Platform/SecretService.swift only when the keyring store is used, and these
   function pointer types are what its dlsym results are cast to. Layouts follow libsecret 0.20
   (secret-schema.h) and GLib 2 (gerror.h), which are ABI-stable. Header only: nothing to link. */
#include <stdint.h>

typedef struct {
    uint32_t domain;
    int32_t code;
    char *message;
} pingcli_gerror;

typedef struct {
    const char *name;
    int type; /* SECRET_SCHEMA_ATTRIBUTE_STRING = 0 */
} pingcli_secret_schema_attribute;

typedef struct {
    const char *name;
    int flags; /* SECRET_SCHEMA_NONE = 0 */
    pingcli_secret_schema_attribute attributes[32];
    int reserved;
    void *reserved1, *reserved2, *reserved3, *reserved4, *reserved5, *reserved6, *reserved7;
} pingcli_secret_schema;

/* The schema of pingcli's item: what `secret-tool search application pingcli` shows. */
static inline const pingcli_secret_schema *pingcli_cache_key_schema(void) {
    static const pingcli_secret_schema schema = {
        "io.github.pingcli.CacheKey",
        0,
        {{"application", 0}, {"pingcli-key-id", 0}, {"pingcli-data-directory", 0}, {0, 0}},
        0, 0, 0, 0, 0, 0, 0, 0};
    return &schema;
}

/* libsecret: secret_password_lookupv_sync, storev_sync, clearv_sync, searchv_sync, secret_password_free. */
typedef char *(*pingcli_secret_lookup_fn)(const pingcli_secret_schema *, void *attributes, void *cancellable,
                                         pingcli_gerror **);
typedef int (*pingcli_secret_store_fn)(const pingcli_secret_schema *, void *attributes, const char *collection,
                                       const char *label, const char *password, void *cancellable, pingcli_gerror **);
typedef int (*pingcli_secret_clear_fn)(const pingcli_secret_schema *, void *attributes, void *cancellable,
                                       pingcli_gerror **);
typedef void *(*pingcli_secret_search_fn)(const pingcli_secret_schema *, void *attributes, int flags,
                                         void *cancellable, pingcli_gerror **);
typedef void (*pingcli_secret_free_fn)(char *);
/* GLib and GIO, reached through libsecret's own dependencies. */
typedef void *(*pingcli_g_hash_table_new_fn)(void *hash, void *equal);
typedef int (*pingcli_g_hash_table_insert_fn)(void *table, void *key, void *value);
typedef void (*pingcli_g_pointer_fn)(void *);
typedef void (*pingcli_g_list_free_full_fn)(void *list, void *free_function);
typedef unsigned int (*pingcli_g_list_length_fn)(void *list);
typedef void (*pingcli_g_error_free_fn)(pingcli_gerror *);
typedef uint32_t (*pingcli_g_quark_fn)(void);

#endif
