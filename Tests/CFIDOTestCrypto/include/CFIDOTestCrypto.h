/* The cryptography of the tests' software FIDO2 authenticator (Tests/FIDOTestAuthenticator), through
   OpenSSL's libcrypto: P-256 keys, ECDSA, ECDH, AES-256-CBC, HMAC-SHA-256, HKDF-SHA-256. Test code only;
   every function returns 1 on success, 0 on failure. */
#ifndef PINGCLI_FIDO_TEST_CRYPTO_H
#define PINGCLI_FIDO_TEST_CRYPTO_H
#include <stddef.h>
#include <stdint.h>

int fidotest_random(uint8_t *out, size_t length);
int fidotest_sha256(const uint8_t *message, size_t length, uint8_t digest[32]);
/* A new P-256 key: its scalar and its public point's coordinates. */
int fidotest_p256_generate(uint8_t scalar[32], uint8_t x[32], uint8_t y[32]);
/* ECDSA with SHA-256 over `message`, ASN.1 DER (at most 72 bytes) into `signature`. */
int fidotest_p256_sign(const uint8_t scalar[32], const uint8_t *message, size_t length, uint8_t signature[72],
                       size_t *signature_length);
/* ECDH: the x coordinate of scalar · (x, y). */
int fidotest_p256_ecdh(const uint8_t scalar[32], const uint8_t x[32], const uint8_t y[32], uint8_t shared[32]);
/* AES-256-CBC without padding (length a multiple of 16). */
int fidotest_aes256_cbc(int encrypt, const uint8_t key[32], const uint8_t iv[16], const uint8_t *in, size_t length,
                        uint8_t *out);
int fidotest_hmac_sha256(const uint8_t *key, size_t key_length, const uint8_t *message, size_t length,
                         uint8_t mac[32]);
/* HKDF-SHA-256 with a salt of 32 zero bytes (CTAP2.1 PIN/UV protocol 2), 32 bytes out. */
int fidotest_hkdf_sha256(const uint8_t *secret, size_t length, const char *info, uint8_t out[32]);
#endif
