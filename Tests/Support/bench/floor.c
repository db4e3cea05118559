/* The floor for `pingcli token --raw`: read a 32-byte key and a small sealed file, decrypt it with
 * libsodium's XChaCha20-Poly1305 (as pingcli does), print the plaintext. Built by `make bench`, static
 * and dynamic, and timed beside pingcli.
 *
 *   floor seal KEY IN OUT   writes OUT: a 24-byte nonce, then IN sealed under KEY (setup, not timed)
 *   floor KEY FILE          prints FILE's plaintext
 */
#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static size_t slurp(const char *path, unsigned char *buffer, size_t size) {
    FILE *file = fopen(path, "rb");
    if (!file) return 0;
    size_t count = fread(buffer, 1, size, file);
    fclose(file);
    return count;
}

int main(int argc, char **argv) {
    unsigned char key[32], in[4096], out[4096 + 64];
    unsigned long long length = 0;
    if (sodium_init() < 0) return 1;
    if (argc == 5 && strcmp(argv[1], "seal") == 0) {
        if (slurp(argv[2], key, sizeof key) != sizeof key) return 2;
        size_t count = slurp(argv[3], in, sizeof in);
        unsigned char *nonce = out;
        randombytes_buf(nonce, 24);
        crypto_aead_xchacha20poly1305_ietf_encrypt(out + 24, &length, in, count, NULL, 0, NULL, nonce, key);
        FILE *file = fopen(argv[4], "wb");
        if (!file) return 3;
        fwrite(out, 1, 24 + length, file);
        fclose(file);
        return 0;
    }
    if (argc != 3) return 2;
    if (slurp(argv[1], key, sizeof key) != sizeof key) return 2;
    size_t count = slurp(argv[2], in, sizeof in);
    if (count < 24 + 16) return 4;
    if (crypto_aead_xchacha20poly1305_ietf_decrypt(out, &length, NULL, in + 24, count - 24, NULL, 0, in, key) != 0) return 5;
    out[length] = '\n';
    if (write(1, out, length + 1) < 0) return 6;
    sodium_memzero(key, sizeof key);
    return 0;
}
