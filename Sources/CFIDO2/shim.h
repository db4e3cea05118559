#ifndef PINGCLI_CFIDO2_SHIM_H
#define PINGCLI_CFIDO2_SHIM_H
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <fido.h>

/* libfido2 (libfido2.so.1) is loaded with dlopen only when a WebAuthn step looks for a security key:
   `pingcli token --raw` maps none of it. Only Debian's libfido2-dev headers are needed to build.
   PingFIDO2/FIDO2Library.swift is the one Swift file that calls this table. */

typedef struct {
    __typeof__(fido_init) *init;
    __typeof__(fido_dev_info_new) *dev_info_new;
    __typeof__(fido_dev_info_manifest) *dev_info_manifest;
    __typeof__(fido_dev_info_ptr) *dev_info_ptr;
    __typeof__(fido_dev_info_path) *dev_info_path;
    __typeof__(fido_dev_info_free) *dev_info_free;
    __typeof__(fido_dev_new) *dev_new;
    __typeof__(fido_dev_free) *dev_free;
    __typeof__(fido_dev_open) *dev_open;
    __typeof__(fido_dev_close) *dev_close;
    __typeof__(fido_dev_set_io_functions) *dev_set_io_functions;
    __typeof__(fido_dev_set_timeout) *dev_set_timeout;
    __typeof__(fido_dev_is_fido2) *dev_is_fido2;
    __typeof__(fido_dev_has_pin) *dev_has_pin;
    __typeof__(fido_dev_has_uv) *dev_has_uv;
    __typeof__(fido_dev_get_retry_count) *dev_get_retry_count;
    __typeof__(fido_dev_get_cbor_info) *dev_get_cbor_info;
    __typeof__(fido_dev_make_cred) *dev_make_cred;
    __typeof__(fido_dev_get_assert) *dev_get_assert;
    __typeof__(fido_cbor_info_new) *cbor_info_new;
    __typeof__(fido_cbor_info_free) *cbor_info_free;
    __typeof__(fido_cbor_info_algorithm_count) *cbor_info_algorithm_count;
    __typeof__(fido_cbor_info_algorithm_cose) *cbor_info_algorithm_cose;
    __typeof__(fido_cbor_info_options_len) *cbor_info_options_len;
    __typeof__(fido_cbor_info_options_name_ptr) *cbor_info_options_name_ptr;
    __typeof__(fido_cbor_info_options_value_ptr) *cbor_info_options_value_ptr;
    __typeof__(fido_cred_new) *cred_new;
    __typeof__(fido_cred_free) *cred_free;
    __typeof__(fido_cred_set_type) *cred_set_type;
    __typeof__(fido_cred_set_clientdata_hash) *cred_set_clientdata_hash;
    __typeof__(fido_cred_set_rp) *cred_set_rp;
    __typeof__(fido_cred_set_user) *cred_set_user;
    __typeof__(fido_cred_exclude) *cred_exclude;
    __typeof__(fido_cred_set_rk) *cred_set_rk;
    __typeof__(fido_cred_set_uv) *cred_set_uv;
    __typeof__(fido_cred_fmt) *cred_fmt;
    __typeof__(fido_cred_attstmt_ptr) *cred_attstmt_ptr;
    __typeof__(fido_cred_attstmt_len) *cred_attstmt_len;
    __typeof__(fido_cred_authdata_raw_ptr) *cred_authdata_raw_ptr;
    __typeof__(fido_cred_authdata_raw_len) *cred_authdata_raw_len;
    __typeof__(fido_cred_id_ptr) *cred_id_ptr;
    __typeof__(fido_cred_id_len) *cred_id_len;
    __typeof__(fido_assert_new) *assert_new;
    __typeof__(fido_assert_free) *assert_free;
    __typeof__(fido_assert_set_rp) *assert_set_rp;
    __typeof__(fido_assert_set_clientdata_hash) *assert_set_clientdata_hash;
    __typeof__(fido_assert_allow_cred) *assert_allow_cred;
    __typeof__(fido_assert_set_up) *assert_set_up;
    __typeof__(fido_assert_set_uv) *assert_set_uv;
    __typeof__(fido_assert_count) *assert_count;
    __typeof__(fido_assert_id_ptr) *assert_id_ptr;
    __typeof__(fido_assert_id_len) *assert_id_len;
    __typeof__(fido_assert_authdata_ptr) *assert_authdata_ptr;
    __typeof__(fido_assert_authdata_len) *assert_authdata_len;
    __typeof__(fido_assert_sig_ptr) *assert_sig_ptr;
    __typeof__(fido_assert_sig_len) *assert_sig_len;
    __typeof__(fido_assert_user_id_ptr) *assert_user_id_ptr;
    __typeof__(fido_assert_user_id_len) *assert_user_id_len;
} pingcli_fido_api;

static inline pingcli_fido_api *pingcli_fido_table(void) {
    static pingcli_fido_api table;
    return &table;
}

/* 0 not tried, 1 ready, -1 the library or a symbol missing. */
static inline int *pingcli_fido_state(void) {
    static int state;
    return &state;
}

static inline void pingcli_fido_load_once(void) {
    int *state = pingcli_fido_state();
    pingcli_fido_api *api = pingcli_fido_table();
    void *library = dlopen("libfido2.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) { *state = -1; return; }
#define PINGCLI_FIDO_SYMBOL(field, name)                                  \
    *(void **)(&api->field) = dlsym(library, name);                       \
    if (api->field == NULL) { *state = -1; return; }
    PINGCLI_FIDO_SYMBOL(init, "fido_init")
    PINGCLI_FIDO_SYMBOL(dev_info_new, "fido_dev_info_new")
    PINGCLI_FIDO_SYMBOL(dev_info_manifest, "fido_dev_info_manifest")
    PINGCLI_FIDO_SYMBOL(dev_info_ptr, "fido_dev_info_ptr")
    PINGCLI_FIDO_SYMBOL(dev_info_path, "fido_dev_info_path")
    PINGCLI_FIDO_SYMBOL(dev_info_free, "fido_dev_info_free")
    PINGCLI_FIDO_SYMBOL(dev_new, "fido_dev_new")
    PINGCLI_FIDO_SYMBOL(dev_free, "fido_dev_free")
    PINGCLI_FIDO_SYMBOL(dev_open, "fido_dev_open")
    PINGCLI_FIDO_SYMBOL(dev_close, "fido_dev_close")
    PINGCLI_FIDO_SYMBOL(dev_set_io_functions, "fido_dev_set_io_functions")
    PINGCLI_FIDO_SYMBOL(dev_set_timeout, "fido_dev_set_timeout")
    PINGCLI_FIDO_SYMBOL(dev_is_fido2, "fido_dev_is_fido2")
    PINGCLI_FIDO_SYMBOL(dev_has_pin, "fido_dev_has_pin")
    PINGCLI_FIDO_SYMBOL(dev_has_uv, "fido_dev_has_uv")
    PINGCLI_FIDO_SYMBOL(dev_get_retry_count, "fido_dev_get_retry_count")
    PINGCLI_FIDO_SYMBOL(dev_get_cbor_info, "fido_dev_get_cbor_info")
    PINGCLI_FIDO_SYMBOL(dev_make_cred, "fido_dev_make_cred")
    PINGCLI_FIDO_SYMBOL(dev_get_assert, "fido_dev_get_assert")
    PINGCLI_FIDO_SYMBOL(cbor_info_new, "fido_cbor_info_new")
    PINGCLI_FIDO_SYMBOL(cbor_info_free, "fido_cbor_info_free")
    PINGCLI_FIDO_SYMBOL(cbor_info_algorithm_count, "fido_cbor_info_algorithm_count")
    PINGCLI_FIDO_SYMBOL(cbor_info_algorithm_cose, "fido_cbor_info_algorithm_cose")
    PINGCLI_FIDO_SYMBOL(cbor_info_options_len, "fido_cbor_info_options_len")
    PINGCLI_FIDO_SYMBOL(cbor_info_options_name_ptr, "fido_cbor_info_options_name_ptr")
    PINGCLI_FIDO_SYMBOL(cbor_info_options_value_ptr, "fido_cbor_info_options_value_ptr")
    PINGCLI_FIDO_SYMBOL(cred_new, "fido_cred_new")
    PINGCLI_FIDO_SYMBOL(cred_free, "fido_cred_free")
    PINGCLI_FIDO_SYMBOL(cred_set_type, "fido_cred_set_type")
    PINGCLI_FIDO_SYMBOL(cred_set_clientdata_hash, "fido_cred_set_clientdata_hash")
    PINGCLI_FIDO_SYMBOL(cred_set_rp, "fido_cred_set_rp")
    PINGCLI_FIDO_SYMBOL(cred_set_user, "fido_cred_set_user")
    PINGCLI_FIDO_SYMBOL(cred_exclude, "fido_cred_exclude")
    PINGCLI_FIDO_SYMBOL(cred_set_rk, "fido_cred_set_rk")
    PINGCLI_FIDO_SYMBOL(cred_set_uv, "fido_cred_set_uv")
    PINGCLI_FIDO_SYMBOL(cred_fmt, "fido_cred_fmt")
    PINGCLI_FIDO_SYMBOL(cred_attstmt_ptr, "fido_cred_attstmt_ptr")
    PINGCLI_FIDO_SYMBOL(cred_attstmt_len, "fido_cred_attstmt_len")
    PINGCLI_FIDO_SYMBOL(cred_authdata_raw_ptr, "fido_cred_authdata_raw_ptr")
    PINGCLI_FIDO_SYMBOL(cred_authdata_raw_len, "fido_cred_authdata_raw_len")
    PINGCLI_FIDO_SYMBOL(cred_id_ptr, "fido_cred_id_ptr")
    PINGCLI_FIDO_SYMBOL(cred_id_len, "fido_cred_id_len")
    PINGCLI_FIDO_SYMBOL(assert_new, "fido_assert_new")
    PINGCLI_FIDO_SYMBOL(assert_free, "fido_assert_free")
    PINGCLI_FIDO_SYMBOL(assert_set_rp, "fido_assert_set_rp")
    PINGCLI_FIDO_SYMBOL(assert_set_clientdata_hash, "fido_assert_set_clientdata_hash")
    PINGCLI_FIDO_SYMBOL(assert_allow_cred, "fido_assert_allow_cred")
    PINGCLI_FIDO_SYMBOL(assert_set_up, "fido_assert_set_up")
    PINGCLI_FIDO_SYMBOL(assert_set_uv, "fido_assert_set_uv")
    PINGCLI_FIDO_SYMBOL(assert_count, "fido_assert_count")
    PINGCLI_FIDO_SYMBOL(assert_id_ptr, "fido_assert_id_ptr")
    PINGCLI_FIDO_SYMBOL(assert_id_len, "fido_assert_id_len")
    PINGCLI_FIDO_SYMBOL(assert_authdata_ptr, "fido_assert_authdata_ptr")
    PINGCLI_FIDO_SYMBOL(assert_authdata_len, "fido_assert_authdata_len")
    PINGCLI_FIDO_SYMBOL(assert_sig_ptr, "fido_assert_sig_ptr")
    PINGCLI_FIDO_SYMBOL(assert_sig_len, "fido_assert_sig_len")
    PINGCLI_FIDO_SYMBOL(assert_user_id_ptr, "fido_assert_user_id_ptr")
    PINGCLI_FIDO_SYMBOL(assert_user_id_len, "fido_assert_user_id_len")
#undef PINGCLI_FIDO_SYMBOL
    api->init(0);
    *state = 1;
}

/* Loads libfido2 once, whichever thread asks first: 1 ready, -1 missing. */
static inline int pingcli_fido_load(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, pingcli_fido_load_once);
    return *pingcli_fido_state();
}

/* The path of the first FIDO device the system lists (HID), copied into `path`: 1 found, 0 none,
   -1 libfido2 missing. */
static inline int pingcli_fido_first_path(char *path, size_t capacity) {
    if (pingcli_fido_load() != 1) return -1;
    pingcli_fido_api *api = pingcli_fido_table();
    size_t found = 0;
    fido_dev_info_t *list = api->dev_info_new(16);
    if (list == NULL) return 0;
    int result = 0;
    if (api->dev_info_manifest(list, 16, &found) == FIDO_OK && found > 0) {
        const char *first = api->dev_info_path(api->dev_info_ptr(list, 0));
        if (first != NULL && strlen(first) < capacity) {
            strcpy(path, first);
            result = 1;
        }
    }
    api->dev_info_free(&list, 16);
    return result;
}

/* A device reached through a Unix stream socket instead of HID (the test builds' security key,
   docs/testing.md): 64-byte CTAPHID reports each way, libfido2 doing all of the framing. */
typedef struct {
    int fd;
} pingcli_fido_socket;

static inline void *pingcli_fido_socket_open(const char *path) {
    struct sockaddr_un address;
    if (strlen(path) >= sizeof(address.sun_path)) return NULL;
    memset(&address, 0, sizeof(address));
    address.sun_family = AF_UNIX;
    strcpy(address.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return NULL;
    if (connect(fd, (struct sockaddr *)&address, sizeof(address)) != 0) { close(fd); return NULL; }
    pingcli_fido_socket *handle = malloc(sizeof(*handle));
    if (handle == NULL) { close(fd); return NULL; }
    handle->fd = fd;
    return handle;
}

static inline void pingcli_fido_socket_close(void *handle) {
    pingcli_fido_socket *socket = handle;
    close(socket->fd);
    free(socket);
}

static inline int pingcli_fido_socket_read(void *handle, unsigned char *buffer, size_t length, int ms) {
    pingcli_fido_socket *socket = handle;
    size_t done = 0;
    while (done < length) {
        struct pollfd waiting = { socket->fd, POLLIN, 0 };
        int ready = poll(&waiting, 1, ms);
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) return -1;
        ssize_t got = recv(socket->fd, buffer + done, length - done, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return -1;
        done += (size_t)got;
    }
    return (int)done;
}

/* libfido2 writes a report ID byte (0) before each 64-byte report, as to a HID device. */
static inline int pingcli_fido_socket_write(void *handle, const unsigned char *buffer, size_t length) {
    pingcli_fido_socket *socket = handle;
    if (length < 2) return -1;
    size_t done = 1;
    while (done < length) {
        ssize_t sent = send(socket->fd, buffer + done, length - done, MSG_NOSIGNAL);
        if (sent < 0 && errno == EINTR) continue;
        if (sent <= 0) return -1;
        done += (size_t)sent;
    }
    return (int)length;
}

/* The socket transport's functions, for fido_dev_set_io_functions. Only test builds name it (Swift's
   `#if DEBUG`): in a release build nothing refers to it, so none of the above is compiled in. */
static inline const fido_dev_io_t *pingcli_fido_socket_io(void) {
    static const fido_dev_io_t io = {
        pingcli_fido_socket_open, pingcli_fido_socket_close, pingcli_fido_socket_read, pingcli_fido_socket_write,
    };
    return &io;
}

/* A new device handle, opened at `path`: a hidraw device, or through `io` when not NULL. */
static inline int pingcli_fido_open(const char *path, const fido_dev_io_t *io, fido_dev_t **device) {
    if (pingcli_fido_load() != 1) return FIDO_ERR_INTERNAL;
    pingcli_fido_api *api = pingcli_fido_table();
    if ((*device = api->dev_new()) == NULL) return FIDO_ERR_INTERNAL;
    int rc = FIDO_OK;
    if (io != NULL) rc = api->dev_set_io_functions(*device, io);
    if (rc == FIDO_OK) rc = api->dev_open(*device, path);
    if (rc != FIDO_OK) api->dev_free(device);
    return rc;
}

static inline void pingcli_fido_close(fido_dev_t **device) {
    pingcli_fido_api *api = pingcli_fido_table();
    api->dev_close(*device);
    api->dev_free(device);
}

/* Whether the key's getInfo lists `name` among its options: 1 true, 0 false, -1 absent. */
static inline int pingcli_fido_option(const fido_cbor_info_t *info, const char *name) {
    pingcli_fido_api *api = pingcli_fido_table();
    char **names = api->cbor_info_options_name_ptr(info);
    const bool *values = api->cbor_info_options_value_ptr(info);
    for (size_t i = 0; i < api->cbor_info_options_len(info); i++)
        if (strcmp(names[i], name) == 0) return values[i] ? 1 : 0;
    return -1;
}

#endif
