#ifndef DROPTRACK_COPENSSL_SHIM_H
#define DROPTRACK_COPENSSL_SHIM_H

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

/* The functions below exist because OpenSSL defines them as macros, which Swift cannot call. */

static inline void copenssl_free(void *p) { OPENSSL_free(p); }

static inline long copenssl_ctx_set_min_tls12(SSL_CTX *ctx) {
    return SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
}

/* Partial writes and a moving buffer let a non-blocking loop retry SSL_write with whatever is left. */
static inline long copenssl_ctx_set_nonblocking_write_modes(SSL_CTX *ctx) {
    return SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
}

static inline long copenssl_set_sni(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}

static inline void copenssl_x509v3_set_ctx_nodb(X509V3_CTX *ctx) { X509V3_set_ctx_nodb(ctx); }

static inline int copenssl_bio_read_pending(BIO *bio) { return (int)BIO_pending(bio); }

static inline long copenssl_bio_get_mem_data(BIO *bio, char **out) { return BIO_get_mem_data(bio, out); }

#endif
