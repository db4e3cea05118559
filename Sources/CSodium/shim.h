#ifndef PINGCLI_CSODIUM_SHIM_H
#define PINGCLI_CSODIUM_SHIM_H
#include <sodium.h>

/* What sodium_init does besides seeding the random generator (libsodium 1.0.18's core.c): find the CPU's
   features and pick each primitive's fastest code. The functions are libsodium's own, not in its API: a
   static libsodium.a (the release build) has them, a shared libsodium.so keeps them to itself, and then
   these weak references are null and sodium_init does it all. */
extern int _sodium_runtime_get_cpu_features(void) __attribute__((weak));
extern int _crypto_pwhash_argon2_pick_best_implementation(void) __attribute__((weak));
extern int _crypto_generichash_blake2b_pick_best_implementation(void) __attribute__((weak));
extern int _crypto_onetimeauth_poly1305_pick_best_implementation(void) __attribute__((weak));
extern int _crypto_scalarmult_curve25519_pick_best_implementation(void) __attribute__((weak));
extern int _crypto_stream_chacha20_pick_best_implementation(void) __attribute__((weak));
extern int _crypto_stream_salsa20_pick_best_implementation(void) __attribute__((weak));

/* libsodium ready for everything but randomness, without drawing any (sodium_init reads the kernel's
   generator twice, for the random generator's check and a canary of sodium_malloc, which pingcli does
   not use): a cache hit needs none. Returns what sodium_init returns when it has to call it, else 0. */
static inline int pingcli_sodium_init_without_random(void) {
    if (!_sodium_runtime_get_cpu_features || !_crypto_pwhash_argon2_pick_best_implementation
        || !_crypto_generichash_blake2b_pick_best_implementation || !_crypto_onetimeauth_poly1305_pick_best_implementation
        || !_crypto_scalarmult_curve25519_pick_best_implementation || !_crypto_stream_chacha20_pick_best_implementation
        || !_crypto_stream_salsa20_pick_best_implementation) {
        return sodium_init();
    }
    _sodium_runtime_get_cpu_features();
    _crypto_pwhash_argon2_pick_best_implementation();
    _crypto_generichash_blake2b_pick_best_implementation();
    _crypto_onetimeauth_poly1305_pick_best_implementation();
    _crypto_scalarmult_curve25519_pick_best_implementation();
    _crypto_stream_chacha20_pick_best_implementation();
    _crypto_stream_salsa20_pick_best_implementation();
    return 0;
}
#endif
