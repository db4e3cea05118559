#define OPENSSL_SUPPRESS_DEPRECATED
#include "CFIDOTestCrypto.h"
#include <string.h>
#include <openssl/ec.h>
#include <openssl/ecdh.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/obj_mac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

int fidotest_random(uint8_t *out, size_t length) { return RAND_bytes(out, (int)length) == 1; }

int fidotest_sha256(const uint8_t *message, size_t length, uint8_t digest[32]) {
    return SHA256(message, length, digest) != NULL;
}

static EC_KEY *key_from_scalar(const uint8_t scalar[32]) {
    EC_KEY *key = EC_KEY_new_by_curve_name(NID_X9_62_prime256v1);
    BIGNUM *d = BN_bin2bn(scalar, 32, NULL);
    EC_POINT *q = key == NULL ? NULL : EC_POINT_new(EC_KEY_get0_group(key));
    int ok = key != NULL && d != NULL && q != NULL && EC_POINT_mul(EC_KEY_get0_group(key), q, d, NULL, NULL, NULL) == 1 &&
             EC_KEY_set_private_key(key, d) == 1 && EC_KEY_set_public_key(key, q) == 1;
    BN_free(d);
    EC_POINT_free(q);
    if (!ok) {
        EC_KEY_free(key);
        return NULL;
    }
    return key;
}

int fidotest_p256_generate(uint8_t scalar[32], uint8_t x[32], uint8_t y[32]) {
    EC_KEY *key = EC_KEY_new_by_curve_name(NID_X9_62_prime256v1);
    BIGNUM *bx = BN_new(), *by = BN_new();
    int ok = key != NULL && bx != NULL && by != NULL && EC_KEY_generate_key(key) == 1 &&
             BN_bn2binpad(EC_KEY_get0_private_key(key), scalar, 32) == 32 &&
             EC_POINT_get_affine_coordinates(EC_KEY_get0_group(key), EC_KEY_get0_public_key(key), bx, by, NULL) == 1 &&
             BN_bn2binpad(bx, x, 32) == 32 && BN_bn2binpad(by, y, 32) == 32;
    BN_free(bx);
    BN_free(by);
    EC_KEY_free(key);
    return ok;
}

int fidotest_p256_sign(const uint8_t scalar[32], const uint8_t *message, size_t length, uint8_t signature[72],
                       size_t *signature_length) {
    uint8_t digest[32];
    unsigned int written = 72;
    EC_KEY *key = key_from_scalar(scalar);
    int ok = key != NULL && SHA256(message, length, digest) != NULL && ECDSA_size(key) <= 72 &&
             ECDSA_sign(0, digest, 32, signature, &written, key) == 1;
    *signature_length = written;
    EC_KEY_free(key);
    return ok;
}

int fidotest_p256_ecdh(const uint8_t scalar[32], const uint8_t x[32], const uint8_t y[32], uint8_t shared[32]) {
    EC_KEY *key = key_from_scalar(scalar);
    BIGNUM *bx = BN_bin2bn(x, 32, NULL), *by = BN_bin2bn(y, 32, NULL);
    EC_POINT *peer = key == NULL ? NULL : EC_POINT_new(EC_KEY_get0_group(key));
    int ok = key != NULL && bx != NULL && by != NULL && peer != NULL &&
             EC_POINT_set_affine_coordinates(EC_KEY_get0_group(key), peer, bx, by, NULL) == 1 &&
             ECDH_compute_key(shared, 32, peer, key, NULL) == 32;
    BN_free(bx);
    BN_free(by);
    EC_POINT_free(peer);
    EC_KEY_free(key);
    return ok;
}

int fidotest_aes256_cbc(int encrypt, const uint8_t key[32], const uint8_t iv[16], const uint8_t *in, size_t length,
                        uint8_t *out) {
    if (length % 16 != 0) return 0;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int written = 0, final = 0;
    int ok = ctx != NULL && EVP_CipherInit_ex(ctx, EVP_aes_256_cbc(), NULL, key, iv, encrypt) == 1 &&
             EVP_CIPHER_CTX_set_padding(ctx, 0) == 1 && EVP_CipherUpdate(ctx, out, &written, in, (int)length) == 1 &&
             EVP_CipherFinal_ex(ctx, out + written, &final) == 1 && (size_t)(written + final) == length;
    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

int fidotest_hmac_sha256(const uint8_t *key, size_t key_length, const uint8_t *message, size_t length,
                         uint8_t mac[32]) {
    unsigned int written = 0;
    return HMAC(EVP_sha256(), key, (int)key_length, message, length, mac, &written) != NULL && written == 32;
}

int fidotest_hkdf_sha256(const uint8_t *secret, size_t length, const char *info, uint8_t out[32]) {
    uint8_t salt[32];
    size_t out_length = 32;
    memset(salt, 0, sizeof(salt));
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, NULL);
    int ok = ctx != NULL && EVP_PKEY_derive_init(ctx) == 1 && EVP_PKEY_CTX_set_hkdf_md(ctx, EVP_sha256()) == 1 &&
             EVP_PKEY_CTX_set1_hkdf_salt(ctx, salt, sizeof(salt)) == 1 &&
             EVP_PKEY_CTX_set1_hkdf_key(ctx, secret, (int)length) == 1 &&
             EVP_PKEY_CTX_add1_hkdf_info(ctx, (const unsigned char *)info, (int)strlen(info)) == 1 &&
             EVP_PKEY_derive(ctx, out, &out_length) == 1 && out_length == 32;
    EVP_PKEY_CTX_free(ctx);
    return ok;
}
