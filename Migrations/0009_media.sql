-- Media: photos, videos and voice notes, for gifts and challenge proofs.
--
-- A file is stored once, named by the SHA-256 of its bytes (after location
-- metadata was removed), under DATA/media/, never below Public/. A row here
-- exists only while something refers to it; the store deletes the file
-- with its last reference.
CREATE TABLE media_files (
    sha256      TEXT PRIMARY KEY NOT NULL CHECK (length(sha256) = 64),
    mime_type   TEXT NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('photo', 'video', 'audio')),
    byte_count  INTEGER NOT NULL CHECK (byte_count > 0),
    created_at  INTEGER NOT NULL
) STRICT;

-- One use of a file in an occasion: part of a gift, or a challenge's photo proof.
CREATE TABLE occasion_media (
    id            INTEGER PRIMARY KEY,
    occasion_id   INTEGER NOT NULL REFERENCES occasions(id) ON DELETE CASCADE,
    gift_id       INTEGER REFERENCES occasion_gifts(id) ON DELETE CASCADE,
    challenge_id  INTEGER REFERENCES occasion_challenges(id) ON DELETE CASCADE,
    uploader_id   INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    sha256        TEXT NOT NULL REFERENCES media_files(sha256),
    position      INTEGER NOT NULL DEFAULT 0,
    -- What the recording browser measured: WebM files often carry no duration.
    duration_ms   INTEGER CHECK (duration_ms IS NULL OR duration_ms BETWEEN 0 AND 86400000),
    created_at    INTEGER NOT NULL,
    CHECK ((gift_id IS NULL) <> (challenge_id IS NULL))
) STRICT;
CREATE INDEX occasion_media_by_gift ON occasion_media(gift_id, position) WHERE gift_id IS NOT NULL;
CREATE INDEX occasion_media_by_challenge ON occasion_media(challenge_id) WHERE challenge_id IS NOT NULL;
CREATE INDEX occasion_media_by_file ON occasion_media(sha256);
CREATE INDEX occasion_media_by_uploader ON occasion_media(uploader_id);

-- A gift's media is its content: like its words, it changes only in draft.
-- (A cascade from deleting the gift runs after the gift row is gone.)
CREATE TRIGGER occasion_gift_media_added_only_in_draft
BEFORE INSERT ON occasion_media
WHEN NEW.gift_id IS NOT NULL AND (SELECT state FROM occasion_gifts WHERE id = NEW.gift_id) <> 'draft'
BEGIN
    SELECT RAISE(ABORT, 'a gift''s media cannot change once it leaves draft');
END;

CREATE TRIGGER occasion_gift_media_removed_only_in_draft
BEFORE DELETE ON occasion_media
WHEN OLD.gift_id IS NOT NULL AND (SELECT state FROM occasion_gifts WHERE id = OLD.gift_id) <> 'draft'
BEGIN
    SELECT RAISE(ABORT, 'a gift''s media cannot change once it leaves draft');
END;
