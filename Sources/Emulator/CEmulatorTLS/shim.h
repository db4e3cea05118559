// OpenSSL's libssl for the emulator's TLS ports (RFC 8705 mutual TLS, key pinning tests). Only the
// PingEmulator target links it; pingcli itself never does (libcurl does its TLS). Small wrappers keep
// macros and stack types out of Swift.
#ifndef PINGEMU_TLS_SHIM_H
#define PINGEMU_TLS_SHIM_H

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <stdlib.h>
#include <string.h>

/* The handshake accepts any client certificate, self-signed and expired ones included: the
   emulator decides per client after the handshake (tls_client_auth: the chain and the subject;
   self_signed_tls_client_auth: the registered thumbprint), as RFC 8705 §2 servers do. */
static int pingemu_tls_accept_any(int preverify, X509_STORE_CTX *context) {
    (void)preverify;
    (void)context;
    return 1;
}

/// A server context with `certificate` and `key` (PEM files). `request_client_certificate` 1: a
/// client certificate is required (the handshake fails without one); 0: none is asked for.
static inline SSL_CTX *pingemu_tls_server_context(const char *certificate, const char *key, int request_client_certificate) {
    SSL_CTX *context = SSL_CTX_new(TLS_server_method());
    if (context == NULL) return NULL;
    if (SSL_CTX_use_certificate_chain_file(context, certificate) != 1
        || SSL_CTX_use_PrivateKey_file(context, key, SSL_FILETYPE_PEM) != 1
        || SSL_CTX_check_private_key(context) != 1) {
        SSL_CTX_free(context);
        return NULL;
    }
    if (request_client_certificate) {
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, pingemu_tls_accept_any);
    }
    return context;
}

/// The server side of a TLS connection on `descriptor`, handshake done; NULL when it failed.
static inline SSL *pingemu_tls_accept(SSL_CTX *context, int descriptor) {
    SSL *connection = SSL_new(context);
    if (connection == NULL) return NULL;
    if (SSL_set_fd(connection, descriptor) != 1 || SSL_accept(connection) != 1) {
        SSL_free(connection);
        ERR_clear_error();
        return NULL;
    }
    return connection;
}

/// The DER bytes of the peer's certificate (malloc'ed, *length set), or NULL.
static inline unsigned char *pingemu_tls_peer_certificate(SSL *connection, int *length) {
    X509 *certificate = SSL_get1_peer_certificate(connection);
    if (certificate == NULL) return NULL;
    unsigned char *der = NULL;
    *length = i2d_X509(certificate, &der);
    X509_free(certificate);
    if (*length <= 0) return NULL;
    unsigned char *copy = malloc((size_t)*length);
    if (copy != NULL) memcpy(copy, der, (size_t)*length);
    OPENSSL_free(der);
    return copy;
}

static inline void pingemu_tls_close(SSL *connection) {
    SSL_shutdown(connection);
    SSL_free(connection);
    ERR_clear_error();
}

/// Checks a DER certificate against the CA certificates of `ca_file` at the current time (chain,
/// validity, signature): X509_V_OK (0) or OpenSSL's verification error. `subject` receives the
/// subject DN in RFC 4514 form (RFC 8705 §2.1.2 `tls_client_auth_subject_dn`).
static inline int pingemu_tls_verify(const unsigned char *der, int length, const char *ca_file, char *subject, int capacity) {
    const unsigned char *cursor = der;
    X509 *certificate = d2i_X509(NULL, &cursor, length);
    if (certificate == NULL) return -1;
    subject[0] = 0;
    BIO *bio = BIO_new(BIO_s_mem());
    if (bio != NULL) {
        X509_NAME_print_ex(bio, X509_get_subject_name(certificate), 0, XN_FLAG_RFC2253);
        int written = BIO_read(bio, subject, capacity - 1);
        subject[written > 0 ? written : 0] = 0;
        BIO_free(bio);
    }
    int result = -1;
    X509_STORE *store = X509_STORE_new();
    X509_STORE_CTX *context = X509_STORE_CTX_new();
    if (store != NULL && context != NULL && X509_STORE_load_file(store, ca_file) == 1
        && X509_STORE_CTX_init(context, store, certificate, NULL) == 1) {
        result = X509_verify_cert(context) == 1 ? X509_V_OK : X509_STORE_CTX_get_error(context);
    }
    X509_STORE_CTX_free(context);
    X509_STORE_free(store);
    X509_free(certificate);
    ERR_clear_error();
    return result;
}

static inline const char *pingemu_tls_verify_error(int code) { return X509_verify_cert_error_string(code); }

#endif
