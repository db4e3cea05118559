#ifndef PINGCLI_CCURL_SHIM_H
#define PINGCLI_CCURL_SHIM_H
#include <curl/curl.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call.
   These typed wrappers are the only way the Swift side reaches them. */
static inline CURLcode pingcli_curl_setopt_long(CURL *h, CURLoption o, long v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode pingcli_curl_setopt_string(CURL *h, CURLoption o, const char *v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode pingcli_curl_setopt_pointer(CURL *h, CURLoption o, void *v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode pingcli_curl_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) {
    return curl_easy_setopt(h, o, v);
}
typedef size_t (*pingcli_curl_write_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);
static inline CURLcode pingcli_curl_setopt_write_function(CURL *h, CURLoption o, pingcli_curl_write_callback f) {
    return curl_easy_setopt(h, o, f);
}
static inline CURLcode pingcli_curl_getinfo_long(CURL *h, CURLINFO i, long *v) {
    return curl_easy_getinfo(h, i, v);
}
static inline CURLcode pingcli_curl_getinfo_string(CURL *h, CURLINFO i, char **v) {
    return curl_easy_getinfo(h, i, v);
}
#endif
