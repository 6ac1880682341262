#include "kith_lazy.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <postgresql/libpq-fe.h>
#include <nghttp2/nghttp2.h>

// Each list names a function with its result type, parameters and the
// arguments passed on; the X-macros below turn it into a pointer, a lookup
// and a trampoline. A function Kith starts calling must be added here, or the
// link fails with an undefined symbol.
#define LIBPQ_FUNCTIONS(F, V) \
    F(int, PQbackendPID, (const PGconn *conn), (conn)) \
    V(PQclear, (PGresult *res), (res)) \
    F(char *, PQcmdStatus, (PGresult *res), (res)) \
    F(char *, PQcmdTuples, (PGresult *res), (res)) \
    F(PGconn *, PQconnectdb, (const char *conninfo), (conninfo)) \
    F(PGconn *, PQconnectdbParams, (const char *const *keywords, const char *const *values, int expand_dbname), \
      (keywords, values, expand_dbname)) \
    F(int, PQconsumeInput, (PGconn *conn), (conn)) \
    F(char *, PQerrorMessage, (const PGconn *conn), (conn)) \
    F(PGresult *, PQexec, (PGconn *conn, const char *query), (conn, query)) \
    F(PGresult *, PQexecParams, \
      (PGconn *conn, const char *command, int nParams, const Oid *paramTypes, const char *const *paramValues, \
       const int *paramLengths, const int *paramFormats, int resultFormat), \
      (conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat)) \
    F(PGresult *, PQexecPrepared, \
      (PGconn *conn, const char *stmtName, int nParams, const char *const *paramValues, const int *paramLengths, \
       const int *paramFormats, int resultFormat), \
      (conn, stmtName, nParams, paramValues, paramLengths, paramFormats, resultFormat)) \
    V(PQfinish, (PGconn *conn), (conn)) \
    F(char *, PQfname, (const PGresult *res, int field_num), (res, field_num)) \
    V(PQfreemem, (void *ptr), (ptr)) \
    F(Oid, PQftype, (const PGresult *res, int field_num), (res, field_num)) \
    F(int, PQgetisnull, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num)) \
    F(int, PQgetlength, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num)) \
    F(char *, PQgetvalue, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num)) \
    F(int, PQnfields, (const PGresult *res), (res)) \
    F(PGnotify *, PQnotifies, (PGconn *conn), (conn)) \
    F(int, PQntuples, (const PGresult *res), (res)) \
    F(PGresult *, PQprepare, \
      (PGconn *conn, const char *stmtName, const char *query, int nParams, const Oid *paramTypes), \
      (conn, stmtName, query, nParams, paramTypes)) \
    F(char *, PQresultErrorField, (const PGresult *res, int fieldcode), (res, fieldcode)) \
    F(ExecStatusType, PQresultStatus, (const PGresult *res), (res)) \
    F(int, PQsetClientEncoding, (PGconn *conn, const char *encoding), (conn, encoding)) \
    F(PQnoticeProcessor, PQsetNoticeProcessor, (PGconn *conn, PQnoticeProcessor proc, void *arg), (conn, proc, arg)) \
    F(int, PQsocket, (const PGconn *conn), (conn)) \
    F(ConnStatusType, PQstatus, (const PGconn *conn), (conn)) \
    F(PGTransactionStatusType, PQtransactionStatus, (const PGconn *conn), (conn))

#define NGHTTP2_FUNCTIONS(F, V) \
    V(nghttp2_option_del, (nghttp2_option *option), (option)) \
    F(int, nghttp2_option_new, (nghttp2_option **option_ptr), (option_ptr)) \
    V(nghttp2_option_set_no_auto_window_update, (nghttp2_option *option, int val), (option, val)) \
    V(nghttp2_option_set_stream_reset_rate_limit, (nghttp2_option *option, uint64_t burst, uint64_t rate), \
      (option, burst, rate)) \
    V(nghttp2_session_callbacks_del, (nghttp2_session_callbacks *callbacks), (callbacks)) \
    F(int, nghttp2_session_callbacks_new, (nghttp2_session_callbacks **callbacks_ptr), (callbacks_ptr)) \
    V(nghttp2_session_callbacks_set_on_begin_headers_callback, \
      (nghttp2_session_callbacks *cbs, nghttp2_on_begin_headers_callback cb), (cbs, cb)) \
    V(nghttp2_session_callbacks_set_on_data_chunk_recv_callback, \
      (nghttp2_session_callbacks *cbs, nghttp2_on_data_chunk_recv_callback cb), (cbs, cb)) \
    V(nghttp2_session_callbacks_set_on_frame_recv_callback, \
      (nghttp2_session_callbacks *cbs, nghttp2_on_frame_recv_callback cb), (cbs, cb)) \
    V(nghttp2_session_callbacks_set_on_frame_send_callback, \
      (nghttp2_session_callbacks *cbs, nghttp2_on_frame_send_callback cb), (cbs, cb)) \
    V(nghttp2_session_callbacks_set_on_header_callback, \
      (nghttp2_session_callbacks *cbs, nghttp2_on_header_callback cb), (cbs, cb)) \
    V(nghttp2_session_callbacks_set_on_stream_close_callback, \
      (nghttp2_session_callbacks *cbs, nghttp2_on_stream_close_callback cb), (cbs, cb)) \
    V(nghttp2_session_callbacks_set_send_data_callback, \
      (nghttp2_session_callbacks *cbs, nghttp2_send_data_callback cb), (cbs, cb)) \
    F(int, nghttp2_session_consume, (nghttp2_session *session, int32_t stream_id, size_t size), \
      (session, stream_id, size)) \
    F(int, nghttp2_session_consume_connection, (nghttp2_session *session, size_t size), (session, size)) \
    V(nghttp2_session_del, (nghttp2_session *session), (session)) \
    F(int32_t, nghttp2_session_get_last_proc_stream_id, (nghttp2_session *session), (session)) \
    F(ssize_t, nghttp2_session_mem_recv, (nghttp2_session *session, const uint8_t *in, size_t inlen), \
      (session, in, inlen)) \
    F(ssize_t, nghttp2_session_mem_send, (nghttp2_session *session, const uint8_t **data_ptr), (session, data_ptr)) \
    F(int, nghttp2_session_resume_data, (nghttp2_session *session, int32_t stream_id), (session, stream_id)) \
    F(int, nghttp2_session_server_new2, \
      (nghttp2_session **session_ptr, const nghttp2_session_callbacks *callbacks, void *user_data, \
       const nghttp2_option *option), \
      (session_ptr, callbacks, user_data, option)) \
    F(int, nghttp2_session_set_local_window_size, \
      (nghttp2_session *session, uint8_t flags, int32_t stream_id, int32_t window_size), \
      (session, flags, stream_id, window_size)) \
    F(int, nghttp2_session_want_read, (nghttp2_session *session), (session)) \
    F(int, nghttp2_session_want_write, (nghttp2_session *session), (session)) \
    F(int, nghttp2_submit_goaway, \
      (nghttp2_session *session, uint8_t flags, int32_t last_stream_id, uint32_t error_code, \
       const uint8_t *opaque_data, size_t opaque_data_len), \
      (session, flags, last_stream_id, error_code, opaque_data, opaque_data_len)) \
    F(int, nghttp2_submit_response, \
      (nghttp2_session *session, int32_t stream_id, const nghttp2_nv *nva, size_t nvlen, \
       const nghttp2_data_provider *data_prd), \
      (session, stream_id, nva, nvlen, data_prd)) \
    F(int, nghttp2_submit_rst_stream, \
      (nghttp2_session *session, uint8_t flags, int32_t stream_id, uint32_t error_code), \
      (session, flags, stream_id, error_code)) \
    F(int, nghttp2_submit_settings, \
      (nghttp2_session *session, uint8_t flags, const nghttp2_settings_entry *iv, size_t niv), \
      (session, flags, iv, niv))

struct lazy_library {
    const char *soname;
    const char *missing; // what a person is told when a trampoline runs without it
    pthread_once_t once;
    int loaded;
    char error[256];
};

static struct lazy_library libpq = {
    "libpq.so.5", "libpq is not installed (Debian: apt install libpq5); PostgreSQL needs it", PTHREAD_ONCE_INIT, 0, ""};
static struct lazy_library nghttp2 = {
    "libnghttp2.so.14", "libnghttp2 is not installed (Debian: apt install libnghttp2-14); HTTP/2 needs it",
    PTHREAD_ONCE_INIT, 0, ""};

#define POINTER(result, name, params, args) static __typeof__(&name) real_##name;
#define VOID_POINTER(name, params, args) static __typeof__(&name) real_##name;
LIBPQ_FUNCTIONS(POINTER, VOID_POINTER)
NGHTTP2_FUNCTIONS(POINTER, VOID_POINTER)

// Every symbol is looked up at load time, so a library too old for one of
// them counts as missing rather than failing in the middle of a request.
#define LOOKUP(result, name, params, args) \
    if (!(real_##name = (__typeof__(&name))dlsym(handle, #name))) return #name;
#define VOID_LOOKUP(name, params, args) LOOKUP(void, name, params, args)

static const char *resolve_libpq(void *handle) {
    LIBPQ_FUNCTIONS(LOOKUP, VOID_LOOKUP)
    return NULL;
}

static const char *resolve_nghttp2(void *handle) {
    NGHTTP2_FUNCTIONS(LOOKUP, VOID_LOOKUP)
    return NULL;
}

static void load(struct lazy_library *library, const char *(*resolve)(void *)) {
    // RTLD_LOCAL: the library's symbols must not become candidates for
    // other libraries' lookups; Kith reaches them only through the pointers.
    void *handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        snprintf(library->error, sizeof library->error, "%s", why ? why : library->soname);
        return;
    }
    const char *absent = resolve(handle);
    if (absent) {
        snprintf(library->error, sizeof library->error, "%s lacks %s", library->soname, absent);
        dlclose(handle);
        return;
    }
    library->loaded = 1;
}

static void load_libpq(void) { load(&libpq, resolve_libpq); }
static void load_nghttp2(void) { load(&nghttp2, resolve_nghttp2); }

int kith_lazy_libpq_available(void) {
    pthread_once(&libpq.once, load_libpq);
    return libpq.loaded;
}

int kith_lazy_nghttp2_available(void) {
    pthread_once(&nghttp2.once, load_nghttp2);
    return nghttp2.loaded;
}

const char *kith_lazy_libpq_error(void) {
    return kith_lazy_libpq_available() ? NULL : libpq.error;
}

const char *kith_lazy_nghttp2_error(void) {
    return kith_lazy_nghttp2_available() ? NULL : nghttp2.error;
}

// Callers ask `*_available` first and turn a missing library into a refusal;
// reaching a trampoline without it is a programming error, and carrying on
// would jump through a null pointer.
static void need(struct lazy_library *library, int (*available)(void)) {
    if (available()) return;
    fprintf(stderr, "kith: %s (%s)\n", library->missing, library->error);
    exit(70);
}

#define TRAMPOLINE(result, name, params, args) \
    result name params { \
        need(&LIBRARY, AVAILABLE); \
        return real_##name args; \
    }
#define VOID_TRAMPOLINE(name, params, args) \
    void name params { \
        need(&LIBRARY, AVAILABLE); \
        real_##name args; \
    }

#define LIBRARY libpq
#define AVAILABLE kith_lazy_libpq_available
LIBPQ_FUNCTIONS(TRAMPOLINE, VOID_TRAMPOLINE)
#undef LIBRARY
#undef AVAILABLE

#define LIBRARY nghttp2
#define AVAILABLE kith_lazy_nghttp2_available
NGHTTP2_FUNCTIONS(TRAMPOLINE, VOID_TRAMPOLINE)
#undef LIBRARY
#undef AVAILABLE
