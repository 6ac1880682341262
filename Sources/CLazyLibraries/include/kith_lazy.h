#ifndef KITH_LAZY_H
#define KITH_LAZY_H

// libpq and libnghttp2 are loaded on first use rather than at start: most
// servers run on SQLite and many never see an HTTP/2 client, and libpq alone
// maps about twenty libraries (Kerberos, LDAP, GnuTLS, SASL) into memory.
// lazy.c defines every function Kith calls from them under its own name; each
// loads the library once and jumps to the real one.

// 1 once the library is loaded (loading it now if needed), 0 if it cannot be.
int kith_lazy_libpq_available(void);
int kith_lazy_nghttp2_available(void);

// Why loading failed (dlerror's text), or NULL.
const char *kith_lazy_libpq_error(void);
const char *kith_lazy_nghttp2_error(void);

#endif
