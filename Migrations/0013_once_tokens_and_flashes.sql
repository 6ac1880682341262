-- Create forms carry a one-time token (Core/OnceTokens.swift). The token is
-- signed, not stored, when the form is shown (a page view never writes); the
-- first post that uses it records it here with where it led, in the same
-- transaction as what it created, so a second post of the same form (a double
-- tap, a retry, two at once) finds the row and answers the same way without
-- creating again. Rows outlive their tokens' 24 hours only until the next sweep.
CREATE TABLE once_tokens (
    user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    nonce      TEXT NOT NULL,
    issued_at  INTEGER NOT NULL,
    -- Where the first post redirected.
    result     TEXT NOT NULL,
    PRIMARY KEY (user_id, nonce)
) STRICT, WITHOUT ROWID;
CREATE INDEX once_tokens_by_issue ON once_tokens(issued_at);

-- A message for the next page a session sees ("Spotted Virginia!"), set by
-- the post that earned it and taken by that page, so it never rides in a URL
-- (where a crafted link could show one and a refresh would repeat it).
-- Ends with its session.
CREATE TABLE session_flashes (
    id          INTEGER PRIMARY KEY,
    session_id  INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    kind        TEXT NOT NULL CHECK (kind IN ('notice', 'error')),
    message     TEXT NOT NULL CHECK (length(message) BETWEEN 1 AND 2000),
    created_at  INTEGER NOT NULL,
    -- When, and on which page, the page script fetched it (see SessionFlash).
    shown_at    INTEGER,
    shown_on    TEXT
) STRICT;
CREATE INDEX session_flashes_by_session ON session_flashes(session_id);

-- A tally last changed by someone whose account is gone reads "updated by a
-- former member", not "by Kith": `updated_by` is NULL for both that and a
-- scheduled reset, so the purge says which it was.
ALTER TABLE tallies ADD COLUMN updated_by_former INTEGER NOT NULL DEFAULT 0 CHECK (updated_by_former IN (0, 1));

-- What an occasion's timeline still says about a gift, challenge or dare
-- whose author deleted their account: the entry keeps its place (the
-- timeline is append-only) and the content goes with the author, but "a gift
-- from a former member" tells more than "a gift (removed)", which is what a
-- host's deletion leaves. Names no one.
CREATE TABLE occasion_departed_subjects (
    occasion_id  INTEGER NOT NULL REFERENCES occasions(id) ON DELETE CASCADE,
    kind         TEXT NOT NULL CHECK (kind IN ('gift', 'challenge', 'dare')),
    subject_id   INTEGER NOT NULL,
    -- A gift's kind (letter, photos, …), so the entry can still say what it was.
    gift_kind    TEXT,
    PRIMARY KEY (occasion_id, kind, subject_id)
) STRICT, WITHOUT ROWID;
