#include <sqlite3.h>

// sqlite3_config is variadic, which Swift cannot call; these fix its arguments.
static inline int kith_sqlite3_config_multithread(void) {
    return sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
}
static inline int kith_sqlite3_config_memstatus(int on) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, on);
}
// No page-cache memory supplied and no bulk allocation per connection: each
// connection takes pages from the heap as it needs them.
static inline int kith_sqlite3_config_pagecache_on_demand(void) {
    return sqlite3_config(SQLITE_CONFIG_PAGECACHE, (void *)0, 0, 0);
}
// SQLITE_TRANSIENT is a cast macro Swift cannot import.
static inline sqlite3_destructor_type kith_sqlite3_transient(void) {
    return SQLITE_TRANSIENT;
}
// Extended result codes are macros built with `|` and `<<`, which Swift does not
// import; these carry the same values as constants.
static const int KITH_SQLITE_CONSTRAINT_CHECK = SQLITE_CONSTRAINT_CHECK;
static const int KITH_SQLITE_CONSTRAINT_FOREIGNKEY = SQLITE_CONSTRAINT_FOREIGNKEY;
static const int KITH_SQLITE_CONSTRAINT_NOTNULL = SQLITE_CONSTRAINT_NOTNULL;
static const int KITH_SQLITE_CONSTRAINT_PRIMARYKEY = SQLITE_CONSTRAINT_PRIMARYKEY;
static const int KITH_SQLITE_CONSTRAINT_UNIQUE = SQLITE_CONSTRAINT_UNIQUE;
