-- Thank-you replies and reactions on unlocked gifts.
--
-- A thank-you is the celebrant's answer to one unlocked gift: words, and at
-- most one photo or voice note. Like a gift that has left draft, it never
-- changes once sent (a trigger, so no route could rewrite it); it goes with
-- its gift, its occasion, or its author's account. Ids are never reused
-- (AUTOINCREMENT): its media is served at a URL that names the thank-you,
-- and a browser may keep a cached copy of that URL.
CREATE TABLE occasion_thanks (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    occasion_id   INTEGER NOT NULL REFERENCES occasions(id) ON DELETE CASCADE,
    gift_id       INTEGER NOT NULL REFERENCES occasion_gifts(id) ON DELETE CASCADE,
    author_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    body          TEXT NOT NULL DEFAULT '' CHECK (length(body) <= 2000),
    sha256        TEXT REFERENCES media_files(sha256),
    media_kind    TEXT CHECK (media_kind IN ('photo', 'audio')),
    -- What the recording browser measured, for a voice note.
    duration_ms   INTEGER CHECK (duration_ms IS NULL OR duration_ms BETWEEN 0 AND 86400000),
    at            INTEGER NOT NULL,
    CHECK ((sha256 IS NULL) = (media_kind IS NULL)),
    CHECK (body <> '' OR sha256 IS NOT NULL)
) STRICT;
CREATE UNIQUE INDEX occasion_thanks_one_per_gift ON occasion_thanks(gift_id);
CREATE INDEX occasion_thanks_by_occasion ON occasion_thanks(occasion_id, at);
CREATE INDEX occasion_thanks_by_author ON occasion_thanks(author_id);
CREATE INDEX occasion_thanks_by_file ON occasion_thanks(sha256) WHERE sha256 IS NOT NULL;

CREATE TRIGGER occasion_thanks_no_update
BEFORE UPDATE ON occasion_thanks
BEGIN
    SELECT RAISE(ABORT, 'a thank-you cannot change once sent');
END;

-- One of each emoji per member and gift; pressing it again takes it back.
CREATE TABLE occasion_reactions (
    occasion_id   INTEGER NOT NULL REFERENCES occasions(id) ON DELETE CASCADE,
    gift_id       INTEGER NOT NULL REFERENCES occasion_gifts(id) ON DELETE CASCADE,
    user_id       INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    emoji         TEXT NOT NULL CHECK (emoji IN ('heart', 'laugh', 'wow', 'tears', 'party')),
    at            INTEGER NOT NULL,
    PRIMARY KEY (gift_id, user_id, emoji)
) STRICT, WITHOUT ROWID;
CREATE INDEX occasion_reactions_by_user ON occasion_reactions(user_id);
CREATE INDEX occasion_reactions_by_occasion ON occasion_reactions(occasion_id);
