// OpenSSL's libcrypto for the emulator's RSA signatures (RS256, PS256). Only the PingEmulator target
// links it; pingcli itself never does. Small wrappers keep the EVP calls (some of them macros or
// variadic in OpenSSL 3) out of Swift.
#ifndef PINGEMU_OPENSSL_SHIM_H
#define PINGEMU_OPENSSL_SHIM_H

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

/// A new RSA key of `bits` bits (public exponent 65537), or NULL.
static inline EVP_PKEY *pingemu_rsa_generate(int bits) {
    EVP_PKEY *key = NULL;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_RSA, NULL);
    if (ctx != NULL && EVP_PKEY_keygen_init(ctx) == 1 && EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, bits) == 1) {
        if (EVP_PKEY_keygen(ctx, &key) != 1) key = NULL;
    }
    EVP_PKEY_CTX_free(ctx);
    return key;
}

/// The big-endian bytes of the key's parameter `name` ("n" or "e") in `out`: their count, or -1.
static inline int pingemu_rsa_parameter(const EVP_PKEY *key, const char *name, unsigned char *out, int capacity) {
    BIGNUM *number = NULL;
    if (EVP_PKEY_get_bn_param(key, name, &number) != 1) return -1;
    int length = BN_num_bytes(number);
    if (length > capacity) length = -1; else BN_bn2bin(number, out);
    BN_free(number);
    return length;
}

/// SHA-256 with RSASSA-PKCS1-v1_5 (`pss` 0, RS256) or RSASSA-PSS with a 32-byte salt (`pss` 1, PS256).
/// `verify` 0: signs `message` into `signature` (capacity and result in `*signatureLength`); 1: checks
/// `signature` (`*signatureLength` bytes). Returns 1 on success.
static inline int pingemu_rsa_sha256(EVP_PKEY *key, int pss, int verify, const unsigned char *message, size_t length,
                                     unsigned char *signature, size_t *signatureLength) {
    int ok = 0;
    EVP_PKEY_CTX *pctx = NULL;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    int started = md != NULL
        && (verify ? EVP_DigestVerifyInit(md, &pctx, EVP_sha256(), NULL, key)
                   : EVP_DigestSignInit(md, &pctx, EVP_sha256(), NULL, key)) == 1;
    if (started && pss) {
        started = EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1
            && EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) == 1;
    }
    if (started) {
        ok = (verify ? EVP_DigestVerify(md, signature, *signatureLength, message, length)
                     : EVP_DigestSign(md, signature, signatureLength, message, length)) == 1;
    }
    EVP_MD_CTX_free(md);
    return ok;
}

#endif
