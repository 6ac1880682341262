-- Photos at the sizes pages ask for. A stored photo's row here says how big
-- it shows (orientation applied) and whether its variants are made; the
-- background maker picks up every photo without a 'ready' or 'failed' row,
-- so a restart resumes whatever was unfinished.
CREATE TABLE media_photos (
    sha256      TEXT PRIMARY KEY NOT NULL REFERENCES media_files(sha256) ON DELETE CASCADE,
    width       INTEGER CHECK (width IS NULL OR width > 0),
    height      INTEGER CHECK (height IS NULL OR height > 0),
    state       TEXT NOT NULL CHECK (state IN ('pending', 'ready', 'failed')),
    updated_at  INTEGER NOT NULL
) STRICT;

-- One variant: a photo shrunk to `width` (never enlarged), as WebP or JPEG,
-- with no metadata. Its bytes are a file in the media store named by their
-- own SHA-256, so its address can name its content.
CREATE TABLE media_variants (
    source_sha256  TEXT NOT NULL REFERENCES media_files(sha256),
    width          INTEGER NOT NULL CHECK (width > 0),
    height         INTEGER NOT NULL CHECK (height > 0),
    format         TEXT NOT NULL CHECK (format IN ('webp', 'jpeg')),
    sha256         TEXT NOT NULL CHECK (length(sha256) = 64),
    byte_count     INTEGER NOT NULL CHECK (byte_count > 0),
    PRIMARY KEY (source_sha256, width, format)
) STRICT, WITHOUT ROWID;
CREATE INDEX media_variants_by_file ON media_variants(sha256);
