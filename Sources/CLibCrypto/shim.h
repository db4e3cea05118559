#ifndef PINGCLI_CLIBCRYPTO_SHIM_H
#define PINGCLI_CLIBCRYPTO_SHIM_H
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

/* OpenSSL's libcrypto is loaded with dlopen the first time pingcli verifies or makes an RSA or ECDSA
   signature (an ID token, a client assertion) or an HMAC (a one-time code), never at start-up: `token --raw` on a cache hit must not
   map it. Only the headers are needed to build (libssl-dev); pingcli does not link libcrypto.
   Crypto/LibCrypto.swift is the only Swift file that calls these. */

typedef struct {
    EVP_MD_CTX *(*md_ctx_new)(void);
    void (*md_ctx_free)(EVP_MD_CTX *);
    int (*verify_init)(EVP_MD_CTX *, EVP_PKEY_CTX **, const EVP_MD *, ENGINE *, EVP_PKEY *);
    int (*verify)(EVP_MD_CTX *, const unsigned char *, size_t, const unsigned char *, size_t);
    int (*sign_init)(EVP_MD_CTX *, EVP_PKEY_CTX **, const EVP_MD *, ENGINE *, EVP_PKEY *);
    int (*sign)(EVP_MD_CTX *, unsigned char *, size_t *, const unsigned char *, size_t);
    int (*set_padding)(EVP_PKEY_CTX *, int);
    int (*set_pss_saltlen)(EVP_PKEY_CTX *, int);
    const EVP_MD *(*sha256)(void);
    const EVP_MD *(*sha384)(void);
    const EVP_MD *(*sha512)(void);
    const EVP_MD *(*sha1)(void);
    EVP_PKEY *(*d2i_pubkey)(EVP_PKEY **, const unsigned char **, long);
    EVP_PKEY *(*d2i_private_key)(EVP_PKEY **, const unsigned char **, long);
    void (*pkey_free)(EVP_PKEY *);
    int (*pkey_base_id)(const EVP_PKEY *);
    int (*pkey_bits)(const EVP_PKEY *);
    unsigned char *(*hmac)(const EVP_MD *, const void *, int, const unsigned char *, size_t, unsigned char *,
                           unsigned int *);
    EVP_PKEY *(*q_keygen)(OSSL_LIB_CTX *, const char *, const char *, ...);
    int (*i2d_private_key)(const EVP_PKEY *, unsigned char **);
    int (*i2d_pubkey)(const EVP_PKEY *, unsigned char **);
} pingcli_crypto_api;

static inline pingcli_crypto_api *pingcli_crypto_table(void) {
    static pingcli_crypto_api table;
    return &table;
}

static inline int *pingcli_crypto_state(void) {
    static int state; /* 0 not tried, 1 ready, -1 unavailable */
    return &state;
}

static void pingcli_crypto_load(void) {
    pingcli_crypto_api *api = pingcli_crypto_table();
    void *library = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) { *pingcli_crypto_state() = -1; return; }
#define PINGCLI_CRYPTO_SYMBOL(field, name)                                \
    *(void **)(&api->field) = dlsym(library, name);                       \
    if (api->field == NULL) { *pingcli_crypto_state() = -1; return; }
    PINGCLI_CRYPTO_SYMBOL(md_ctx_new, "EVP_MD_CTX_new")
    PINGCLI_CRYPTO_SYMBOL(md_ctx_free, "EVP_MD_CTX_free")
    PINGCLI_CRYPTO_SYMBOL(verify_init, "EVP_DigestVerifyInit")
    PINGCLI_CRYPTO_SYMBOL(verify, "EVP_DigestVerify")
    PINGCLI_CRYPTO_SYMBOL(sign_init, "EVP_DigestSignInit")
    PINGCLI_CRYPTO_SYMBOL(sign, "EVP_DigestSign")
    PINGCLI_CRYPTO_SYMBOL(set_padding, "EVP_PKEY_CTX_set_rsa_padding")
    PINGCLI_CRYPTO_SYMBOL(set_pss_saltlen, "EVP_PKEY_CTX_set_rsa_pss_saltlen")
    PINGCLI_CRYPTO_SYMBOL(sha256, "EVP_sha256")
    PINGCLI_CRYPTO_SYMBOL(sha384, "EVP_sha384")
    PINGCLI_CRYPTO_SYMBOL(sha512, "EVP_sha512")
    PINGCLI_CRYPTO_SYMBOL(sha1, "EVP_sha1")
    PINGCLI_CRYPTO_SYMBOL(d2i_pubkey, "d2i_PUBKEY")
    PINGCLI_CRYPTO_SYMBOL(d2i_private_key, "d2i_AutoPrivateKey")
    PINGCLI_CRYPTO_SYMBOL(pkey_free, "EVP_PKEY_free")
    PINGCLI_CRYPTO_SYMBOL(pkey_base_id, "EVP_PKEY_get_base_id")
    PINGCLI_CRYPTO_SYMBOL(pkey_bits, "EVP_PKEY_get_bits")
    PINGCLI_CRYPTO_SYMBOL(hmac, "HMAC")
    PINGCLI_CRYPTO_SYMBOL(q_keygen, "EVP_PKEY_Q_keygen")
    PINGCLI_CRYPTO_SYMBOL(i2d_private_key, "i2d_PrivateKey")
    PINGCLI_CRYPTO_SYMBOL(i2d_pubkey, "i2d_PUBKEY")
#undef PINGCLI_CRYPTO_SYMBOL
    *pingcli_crypto_state() = 1;
}

/* Loads libcrypto once (thread-safe); 1 when it is ready, 0 when it cannot be loaded. */
static inline int pingcli_crypto_available(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, pingcli_crypto_load);
    return *pingcli_crypto_state() == 1;
}

/* 0 SHA-256, 1 SHA-384, 2 SHA-512, 3 SHA-1 (HMAC only: OATH's default, RFC 4226). */
static inline const EVP_MD *pingcli_crypto_digest(int which) {
    pingcli_crypto_api *api = pingcli_crypto_table();
    return which == 0 ? api->sha256() : which == 1 ? api->sha384() : which == 2 ? api->sha512() : api->sha1();
}

/* The public key in a DER SubjectPublicKeyInfo (RFC 5280 §4.1.2.7), or NULL. */
static inline EVP_PKEY *pingcli_crypto_public_key(const unsigned char *der, long length) {
    const unsigned char *cursor = der;
    return pingcli_crypto_table()->d2i_pubkey(NULL, &cursor, length);
}

/* A private key from DER (PKCS#8, or PKCS#1 RSA / SEC 1 EC), or NULL. */
static inline EVP_PKEY *pingcli_crypto_private_key(const unsigned char *der, long length) {
    const unsigned char *cursor = der;
    return pingcli_crypto_table()->d2i_private_key(NULL, &cursor, length);
}

static inline void pingcli_crypto_key_free(EVP_PKEY *key) { pingcli_crypto_table()->pkey_free(key); }
/* EVP_PKEY_RSA (6), EVP_PKEY_EC (408), ... */
static inline int pingcli_crypto_key_type(const EVP_PKEY *key) { return pingcli_crypto_table()->pkey_base_id(key); }
static inline int pingcli_crypto_key_bits(const EVP_PKEY *key) { return pingcli_crypto_table()->pkey_bits(key); }

/* Signs (`verify` 0) or verifies (`verify` 1) `message` with digest `which`; `pss` 1 for RSASSA-PSS
   with a salt as long as the digest (RFC 7518 §3.5). ECDSA signatures are DER here. Returns 1 on success;
   on signing, `*signatureLength` is the capacity in and the length out. */
static inline int pingcli_crypto_signature(EVP_PKEY *key, int which, int pss, int verify, const unsigned char *message,
                                           size_t length, unsigned char *signature, size_t *signatureLength) {
    pingcli_crypto_api *api = pingcli_crypto_table();
    int ok = 0;
    EVP_PKEY_CTX *pctx = NULL;
    EVP_MD_CTX *md = api->md_ctx_new();
    const EVP_MD *digest = pingcli_crypto_digest(which);
    int started = md != NULL
        && (verify ? api->verify_init(md, &pctx, digest, NULL, key) : api->sign_init(md, &pctx, digest, NULL, key)) == 1;
    if (started && pss) {
        started = api->set_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1
            && api->set_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) == 1;
    }
    if (started) {
        ok = (verify ? api->verify(md, signature, *signatureLength, message, length)
                     : api->sign(md, signature, signatureLength, message, length)) == 1;
    }
    if (md != NULL) api->md_ctx_free(md);
    return ok;
}

/* A new key pair (DPoP): `kind` 0 an EC key on P-256, 1 a 2048-bit RSA key; NULL on failure. */
static inline EVP_PKEY *pingcli_crypto_generate(int kind) {
    pingcli_crypto_api *api = pingcli_crypto_table();
    return kind == 0 ? api->q_keygen(NULL, NULL, "EC", "P-256") : api->q_keygen(NULL, NULL, "RSA", (size_t)2048);
}

/* The key's DER into `out` (capacity `capacity`): `which` 0 the private key (SEC 1 for EC, PKCS#1 for
   RSA, as d2i_AutoPrivateKey reads them back), 1 the public SubjectPublicKeyInfo. Its length, or -1. */
static inline int pingcli_crypto_key_der(const EVP_PKEY *key, int which, unsigned char *out, int capacity) {
    pingcli_crypto_api *api = pingcli_crypto_table();
    int length = which == 0 ? api->i2d_private_key(key, NULL) : api->i2d_pubkey(key, NULL);
    if (length <= 0 || length > capacity) return -1;
    unsigned char *cursor = out;
    return which == 0 ? api->i2d_private_key(key, &cursor) : api->i2d_pubkey(key, &cursor);
}

/* HMAC with digest `which` into `out` (64 bytes of room); the MAC's length, or 0. */
static inline unsigned int pingcli_crypto_hmac(int which, const unsigned char *key, int keyLength,
                                               const unsigned char *message, size_t length, unsigned char *out) {
    unsigned int outLength = 0;
    static const unsigned char empty[1] = {0};
    if (pingcli_crypto_table()->hmac(pingcli_crypto_digest(which), keyLength > 0 ? (const void *)key : (const void *)empty,
                                     keyLength, message, length, out, &outLength) == NULL) return 0;
    return outLength;
}
#endif
