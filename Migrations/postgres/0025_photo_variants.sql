-- PostgreSQL twin of ../0025_photo_variants.sql.
CREATE TABLE media_photos (
    sha256      TEXT PRIMARY KEY NOT NULL REFERENCES media_files(sha256) ON DELETE CASCADE,
    width       BIGINT CHECK (width IS NULL OR width > 0),
    height      BIGINT CHECK (height IS NULL OR height > 0),
    state       TEXT NOT NULL CHECK (state IN ('pending', 'ready', 'failed')),
    updated_at  BIGINT NOT NULL
);

CREATE TABLE media_variants (
    source_sha256  TEXT NOT NULL REFERENCES media_files(sha256),
    width          BIGINT NOT NULL CHECK (width > 0),
    height         BIGINT NOT NULL CHECK (height > 0),
    format         TEXT NOT NULL CHECK (format IN ('webp', 'jpeg')),
    sha256         TEXT NOT NULL CHECK (length(sha256) = 64),
    byte_count     BIGINT NOT NULL CHECK (byte_count > 0),
    PRIMARY KEY (source_sha256, width, format)
);
CREATE INDEX media_variants_by_file ON media_variants(sha256);

-- A photo's variants are read as one text column (Media/PhotoVariants.swift)
-- with SQLite's group_concat(value, separator). PostgreSQL spells it
-- string_agg; this aggregate gives it SQLite's name and its rules (NULL
-- values skipped, NULL when there are none), so the store keeps one text.
CREATE FUNCTION kith_group_concat_step(joined TEXT, value TEXT, separator TEXT) RETURNS TEXT
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN value IS NULL THEN joined WHEN joined IS NULL THEN value ELSE joined || separator || value END
$$;
CREATE AGGREGATE group_concat(TEXT, TEXT) (SFUNC = kith_group_concat_step, STYPE = TEXT);
