#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509_vfy.h>
#include <openssl/rand.h>

/* Macros over SSL_ctrl / SSL_CTX_ctrl, which Swift cannot import. */
static inline int kith_ssl_set_sni(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

static inline int kith_ssl_ctx_set_min_tls12(SSL_CTX *ctx) {
    return (int)SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
}

/* The server side (KithHTTP's TLS listener). */
static inline long kith_ssl_ctx_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}

static inline int kith_ssl_ctx_add_chain_cert(SSL_CTX *ctx, X509 *cert) {
    return (int)SSL_CTX_add1_chain_cert(ctx, cert);
}

/* 80 bytes: a 16-byte name, a 32-byte HMAC secret, a 32-byte AES key. */
static inline int kith_ssl_ctx_set_ticket_keys(SSL_CTX *ctx, unsigned char *keys, long length) {
    return (int)SSL_CTX_set_tlsext_ticket_keys(ctx, keys, length);
}

static inline int kith_ssl_set_tls_version_range(SSL_CTX *ctx, int minimum, int maximum) {
    return SSL_CTX_set_min_proto_version(ctx, minimum) && SSL_CTX_set_max_proto_version(ctx, maximum);
}

/* No renegotiation (a client-driven CPU cost) and no compression (CRIME). */
static inline void kith_ssl_ctx_set_server_options(SSL_CTX *ctx) {
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
}

/* Tests' TLS client: which versions one connection offers. */
static inline int kith_ssl_set_version_range(SSL *ssl, int minimum, int maximum) {
    return SSL_set_min_proto_version(ssl, minimum) && SSL_set_max_proto_version(ssl, maximum);
}
