#include <vips/vips.h>

// libvips's operations take their options as NULL-terminated varargs, which
// Swift cannot call; these fix the options Kith uses.

// Once per process. One worker thread and no operation cache: photos are
// made one at a time in the background, and an idle server should not hold
// decoded pixels.
static inline int kith_vips_start(void) {
    if (VIPS_INIT("kith") != 0) return -1;
    vips_concurrency_set(1);
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    return 0;
}

// The photo at `path` as people see it: EXIF orientation applied, shrunk
// (never enlarged) to at most `width` pixels wide, decoded into memory so
// smaller sizes can be made from it without decoding the file again.
static inline VipsImage *kith_vips_load_fitting(const char *path, int width) {
    VipsImage *thumbnail = NULL;
    if (vips_thumbnail(path, &thumbnail, width, "height", VIPS_MAX_COORD, "size", VIPS_SIZE_DOWN, NULL) != 0) return NULL;
    VipsImage *memory = vips_image_copy_memory(thumbnail);
    g_object_unref(thumbnail);
    return memory;
}

static inline VipsImage *kith_vips_shrink(VipsImage *in, int width) {
    VipsImage *out = NULL;
    if (vips_thumbnail_image(in, &out, width, "height", VIPS_MAX_COORD, "size", VIPS_SIZE_DOWN, NULL) != 0) return NULL;
    return out;
}

// The stored photo's size as shown (orientations 5 to 8 turn it a quarter),
// read from its header without decoding the pixels.
static inline int kith_vips_oriented_size(const char *path, int *width, int *height) {
    VipsImage *image = vips_image_new_from_file(path, NULL);
    if (image == NULL) return -1;
    int orientation = 1;
    if (vips_image_get_typeof(image, VIPS_META_ORIENTATION)) vips_image_get_int(image, VIPS_META_ORIENTATION, &orientation);
    int swap = orientation >= 5 && orientation <= 8;
    *width = swap ? vips_image_get_height(image) : vips_image_get_width(image);
    *height = swap ? vips_image_get_width(image) : vips_image_get_height(image);
    g_object_unref(image);
    return 0;
}

// The same pixels with no metadata fields at all. `strip` alone is not
// enough: some savers still write an EXIF block built from the fields.
static inline VipsImage *kith_vips_bare(VipsImage *in) {
    VipsImage *out = NULL;
    if (vips_copy(in, &out, NULL) != 0) return NULL;
    gchar **fields = vips_image_get_fields(out);
    for (int i = 0; fields[i] != NULL; i++) vips_image_remove(out, fields[i]);
    g_strfreev(fields);
    return out;
}

// Saved without any metadata (no EXIF, XMP, IPTC or ICC: no location).
static inline int kith_vips_save_jpeg(VipsImage *in, int quality, void **buffer, size_t *length) {
    VipsImage *bare = kith_vips_bare(in);
    if (bare == NULL) return -1;
    int status = vips_jpegsave_buffer(bare, buffer, length, "Q", quality, "strip", TRUE, "optimize_coding", TRUE, "interlace", TRUE, NULL);
    g_object_unref(bare);
    return status;
}

static inline int kith_vips_save_webp(VipsImage *in, int quality, void **buffer, size_t *length) {
    VipsImage *bare = kith_vips_bare(in);
    if (bare == NULL) return -1;
    int status = vips_webpsave_buffer(bare, buffer, length, "Q", quality, "strip", TRUE, "smart_subsample", TRUE, NULL);
    g_object_unref(bare);
    return status;
}

// Blurry noise: Gaussian noise at 1/`scale` size, enlarged smoothly, in
// three bands. Detail at that scale survives shrinking, as in a real photo.
static inline VipsImage *kith_vips_blobs(int width, int height, int scale, double sigma) {
    VipsImage *bands[3] = {NULL, NULL, NULL}, *joined = NULL, *large = NULL, *out = NULL;
    int small_width = (width + scale - 1) / scale, small_height = (height + scale - 1) / scale;
    int failed = 0;
    for (int i = 0; i < 3 && !failed; i++) failed = vips_gaussnoise(&bands[i], small_width, small_height, "mean", 0.0, "sigma", sigma, NULL);
    if (!failed) failed = vips_bandjoin(bands, &joined, 3, NULL);
    if (!failed) failed = vips_resize(joined, &large, (double)scale, NULL);
    if (!failed) failed = vips_crop(large, &out, 0, 0, width, height, NULL);
    VipsImage *all[] = {bands[0], bands[1], bands[2], joined, large};
    for (int i = 0; i < 5; i++) if (all[i]) g_object_unref(all[i]);
    return failed ? NULL : out;
}

// Test and benchmark photos: a diagonal colour gradient under noise at
// several scales, so the file (and each smaller variant) is as hard to
// compress as a real photo of that size.
static inline int kith_vips_sample_photo(const char *path, int width, int height, int quality) {
    VipsImage *xyz = NULL, *bands[3] = {NULL, NULL, NULL}, *gradient = NULL, *noise = NULL, *sum = NULL, *photo = NULL;
    VipsImage *fine = NULL, *medium = NULL, *coarse = NULL, *sum1 = NULL, *sum2 = NULL;
    int failed = vips_xyz(&xyz, width, height, NULL);
    if (!failed) {
        VipsImage *x = NULL, *y = NULL;
        failed = vips_extract_band(xyz, &x, 0, NULL) || vips_extract_band(xyz, &y, 1, NULL);
        if (!failed) {
            failed = vips_linear1(x, &bands[0], 255.0 / width, 0, NULL)
                || vips_linear1(y, &bands[1], 255.0 / height, 0, NULL)
                || vips_linear1(x, &bands[2], -255.0 / width, 255, NULL);
        }
        if (x) g_object_unref(x);
        if (y) g_object_unref(y);
    }
    if (!failed) failed = vips_bandjoin(bands, &gradient, 3, NULL);
    if (!failed) failed = vips_gaussnoise(&noise, width, height, "mean", 0.0, "sigma", 12.0, NULL);
    if (!failed) failed = (medium = kith_vips_blobs(width, height, 12, 30.0)) == NULL;
    if (!failed) failed = (coarse = kith_vips_blobs(width, height, 60, 40.0)) == NULL;
    if (!failed) failed = vips_add(gradient, noise, &fine, NULL);
    if (!failed) failed = vips_add(fine, medium, &sum1, NULL);
    if (!failed) failed = vips_add(sum1, coarse, &sum2, NULL);
    if (!failed) failed = vips_cast(sum2, &photo, VIPS_FORMAT_UCHAR, NULL);
    if (!failed) failed = vips_image_write_to_file(photo, path, "Q", quality, NULL);
    VipsImage *all[] = {xyz, bands[0], bands[1], bands[2], gradient, noise, sum, photo, fine, medium, coarse, sum1, sum2};
    for (int i = 0; i < 13; i++) if (all[i]) g_object_unref(all[i]);
    return failed ? -1 : 0;
}
