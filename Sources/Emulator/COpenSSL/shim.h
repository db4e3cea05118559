// OpenSSL's libcrypto for the emulator's signatures (RS, PS, ES, HS) and its checks of client
// assertions. Only the PingEmulator target links it; pingcli itself never does. Small wrappers keep the
// EVP calls (some of them macros or variadic in OpenSSL 3) out of Swift.
#ifndef PINGEMU_OPENSSL_SHIM_H
#define PINGEMU_OPENSSL_SHIM_H

#include <string.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/obj_mac.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

/// A new RSA key of `bits` bits (public exponent 65537), or NULL.
static inline EVP_PKEY *pingemu_rsa_generate(int bits) { return EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)bits); }

/// A new EC key on curve `curve` (0 P-256, 1 P-384, 2 P-521), or NULL.
static inline EVP_PKEY *pingemu_ec_generate(int curve) {
    return EVP_PKEY_Q_keygen(NULL, NULL, "EC", curve == 0 ? "P-256" : curve == 1 ? "P-384" : "P-521");
}

/// The big-endian bytes of the key's parameter `name` ("n", "e", "qx", "qy") in `out`, left-padded with
/// zeros to `pad` bytes when `pad` > 0: their count, or -1.
static inline int pingemu_key_parameter(const EVP_PKEY *key, const char *name, unsigned char *out, int capacity, int pad) {
    BIGNUM *number = NULL;
    if (EVP_PKEY_get_bn_param(key, name, &number) != 1) return -1;
    int length = pad > 0 ? pad : BN_num_bytes(number);
    if (length > capacity || BN_num_bytes(number) > length) length = -1;
    else BN_bn2binpad(number, out, length);
    BN_free(number);
    return length;
}

/// The public key from a DER SubjectPublicKeyInfo, or NULL.
static inline EVP_PKEY *pingemu_public_key(const unsigned char *der, long length) {
    const unsigned char *cursor = der;
    return d2i_PUBKEY(NULL, &cursor, length);
}

/// The key's public half as a DER SubjectPublicKeyInfo in `out`: its length, or -1.
static inline int pingemu_public_key_der(EVP_PKEY *key, unsigned char *out, int capacity) {
    int length = i2d_PUBKEY(key, NULL);
    if (length <= 0 || length > capacity) return -1;
    unsigned char *cursor = out;
    return i2d_PUBKEY(key, &cursor);
}

/// The private key as PKCS#8 PEM in `out` (for tests that give pingcli a key file): its length, or -1.
static inline int pingemu_private_key_pem(EVP_PKEY *key, char *out, int capacity) {
    BIO *bio = BIO_new(BIO_s_mem());
    if (bio == NULL) return -1;
    int length = -1;
    if (PEM_write_bio_PrivateKey(bio, key, NULL, NULL, 0, NULL, NULL) == 1) {
        char *data = NULL;
        long size = BIO_get_mem_data(bio, &data);
        if (size > 0 && size <= capacity) { memcpy(out, data, (size_t)size); length = (int)size; }
    }
    BIO_free(bio);
    return length;
}

static inline const EVP_MD *pingemu_digest(int which) {
    return which == 0 ? EVP_sha256() : which == 1 ? EVP_sha384() : EVP_sha512();
}

/// Hash `which` (0 SHA-256, 1 SHA-384, 2 SHA-512) with RSASSA-PKCS1-v1_5 or ECDSA (`pss` 0) or
/// RSASSA-PSS with a salt as long as the hash (`pss` 1). `verify` 0: signs `message` into `signature`
/// (capacity and result in `*signatureLength`); 1: checks `signature`. ECDSA signatures are DER here.
/// Returns 1 on success.
static inline int pingemu_signature(EVP_PKEY *key, int which, int pss, int verify, const unsigned char *message,
                                    size_t length, unsigned char *signature, size_t *signatureLength) {
    int ok = 0;
    EVP_PKEY_CTX *pctx = NULL;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    const EVP_MD *digest = pingemu_digest(which);
    int started = md != NULL
        && (verify ? EVP_DigestVerifyInit(md, &pctx, digest, NULL, key)
                   : EVP_DigestSignInit(md, &pctx, digest, NULL, key)) == 1;
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

/// A DER ECDSA signature as JWS's R || S, each `size` bytes (RFC 7518 §3.4) in `out`: 1 on success.
static inline int pingemu_ecdsa_der_to_raw(const unsigned char *der, long length, unsigned char *out, int size) {
    const unsigned char *cursor = der;
    ECDSA_SIG *sig = d2i_ECDSA_SIG(NULL, &cursor, length);
    if (sig == NULL) return 0;
    const BIGNUM *r = NULL, *s = NULL;
    ECDSA_SIG_get0(sig, &r, &s);
    int ok = BN_bn2binpad(r, out, size) == size && BN_bn2binpad(s, out + size, size) == size;
    ECDSA_SIG_free(sig);
    return ok;
}

/// JWS's R || S (`size` bytes each) as DER in `out` (capacity `capacity`): its length, or -1.
static inline int pingemu_ecdsa_raw_to_der(const unsigned char *raw, int size, unsigned char *out, int capacity) {
    ECDSA_SIG *sig = ECDSA_SIG_new();
    BIGNUM *r = BN_bin2bn(raw, size, NULL), *s = BN_bin2bn(raw + size, size, NULL);
    if (sig == NULL || r == NULL || s == NULL || ECDSA_SIG_set0(sig, r, s) != 1) {
        BN_free(r); BN_free(s); ECDSA_SIG_free(sig);
        return -1;
    }
    int length = i2d_ECDSA_SIG(sig, NULL);
    if (length > 0 && length <= capacity) { unsigned char *cursor = out; length = i2d_ECDSA_SIG(sig, &cursor); }
    else length = -1;
    ECDSA_SIG_free(sig);
    return length;
}

/// HMAC with hash `which` into `out` (64 bytes of room): the MAC's length, or 0.
static inline unsigned int pingemu_hmac(int which, const unsigned char *key, int keyLength, const unsigned char *message,
                                        size_t length, unsigned char *out) {
    unsigned int outLength = 0;
    static const unsigned char empty[1] = {0};
    if (HMAC(pingemu_digest(which), keyLength > 0 ? (const void *)key : (const void *)empty, keyLength, message, length, out,
             &outLength) == NULL) return 0;
    return outLength;
}

#endif
