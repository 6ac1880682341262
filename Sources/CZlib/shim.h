#include <zlib.h>

// deflateInit2 and inflateInit2 are macros (they pass the library's version
// and the stream's size), which Swift cannot call; these are the same calls.
static inline int kith_deflate_init2(z_stream *stream, int level, int window_bits, int mem_level) {
    return deflateInit2(stream, level, Z_DEFLATED, window_bits, mem_level, Z_DEFAULT_STRATEGY);
}
static inline int kith_inflate_init2(z_stream *stream, int window_bits) {
    return inflateInit2(stream, window_bits);
}
