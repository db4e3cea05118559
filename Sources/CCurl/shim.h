#ifndef PINGCLI_CCURL_SHIM_H
#define PINGCLI_CCURL_SHIM_H
#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>

/* libcurl is loaded with dlopen the first time pingcli needs the network, not at start-up: linking it
   pulls in some thirty shared libraries (TLS, Kerberos, LDAP, IDN...) whose loading and constructors cost
   more than everything else `pingcli token --raw` does. Only the headers are needed to build.

   curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call; the typed wrappers below
   call them through correctly typed variadic function pointers. */

typedef struct {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_perform)(CURL *);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
} pingcli_curl_api;

/* Function-local statics: Swift emits only the functions of a C header it calls, so the state lives in
   them rather than at file scope. */
static inline pingcli_curl_api *pingcli_curl_table(void) {
    static pingcli_curl_api table;
    return &table;
}

static inline int *pingcli_curl_state(void) {
    static int state; /* 0 not tried, 1 ready, -1 unavailable */
    return &state;
}

static void pingcli_curl_load(void) {
    pingcli_curl_api *api = pingcli_curl_table();
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) library = dlopen("libcurl.so", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) { *pingcli_curl_state() = -1; return; }
#define PINGCLI_CURL_SYMBOL(field, name)                                  \
    *(void **)(&api->field) = dlsym(library, name);                       \
    if (api->field == NULL) { *pingcli_curl_state() = -1; return; }
    PINGCLI_CURL_SYMBOL(global_init, "curl_global_init")
    PINGCLI_CURL_SYMBOL(easy_init, "curl_easy_init")
    PINGCLI_CURL_SYMBOL(easy_cleanup, "curl_easy_cleanup")
    PINGCLI_CURL_SYMBOL(easy_setopt, "curl_easy_setopt")
    PINGCLI_CURL_SYMBOL(easy_perform, "curl_easy_perform")
    PINGCLI_CURL_SYMBOL(easy_getinfo, "curl_easy_getinfo")
    PINGCLI_CURL_SYMBOL(easy_strerror, "curl_easy_strerror")
    PINGCLI_CURL_SYMBOL(slist_append, "curl_slist_append")
    PINGCLI_CURL_SYMBOL(slist_free_all, "curl_slist_free_all")
#undef PINGCLI_CURL_SYMBOL
    *pingcli_curl_state() = api->global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 1 : -1;
}

/* Loads and initialises libcurl once (thread-safe); 1 when it is ready, 0 when it cannot be loaded. */
static inline int pingcli_curl_available(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, pingcli_curl_load);
    return *pingcli_curl_state() == 1;
}

/* The calls below require pingcli_curl_available() to have returned 1. */
static inline CURL *pingcli_curl_easy_init(void) { return pingcli_curl_table()->easy_init(); }
static inline void pingcli_curl_easy_cleanup(CURL *h) { pingcli_curl_table()->easy_cleanup(h); }
static inline CURLcode pingcli_curl_easy_perform(CURL *h) { return pingcli_curl_table()->easy_perform(h); }
static inline const char *pingcli_curl_easy_strerror(CURLcode c) { return pingcli_curl_table()->easy_strerror(c); }
static inline struct curl_slist *pingcli_curl_slist_append(struct curl_slist *l, const char *s) {
    return pingcli_curl_table()->slist_append(l, s);
}
static inline void pingcli_curl_slist_free_all(struct curl_slist *l) { pingcli_curl_table()->slist_free_all(l); }

static inline CURLcode pingcli_curl_setopt_long(CURL *h, CURLoption o, long v) {
    return pingcli_curl_table()->easy_setopt(h, o, v);
}
static inline CURLcode pingcli_curl_setopt_string(CURL *h, CURLoption o, const char *v) {
    return pingcli_curl_table()->easy_setopt(h, o, v);
}
static inline CURLcode pingcli_curl_setopt_pointer(CURL *h, CURLoption o, void *v) {
    return pingcli_curl_table()->easy_setopt(h, o, v);
}
static inline CURLcode pingcli_curl_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) {
    return pingcli_curl_table()->easy_setopt(h, o, v);
}
typedef size_t (*pingcli_curl_write_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);
static inline CURLcode pingcli_curl_setopt_write_function(CURL *h, CURLoption o, pingcli_curl_write_callback f) {
    return pingcli_curl_table()->easy_setopt(h, o, f);
}
static inline CURLcode pingcli_curl_getinfo_long(CURL *h, CURLINFO i, long *v) {
    return pingcli_curl_table()->easy_getinfo(h, i, v);
}
#endif
