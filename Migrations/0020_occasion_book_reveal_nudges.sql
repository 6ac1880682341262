-- The shared book, the scheduled reveal and nudges.
--
-- The book: while `book_opened_at` is set, every member may read every
-- unlocked gift. The host opens it after the finale and may close it again.
ALTER TABLE occasions ADD COLUMN book_opened_at INTEGER;

-- The scheduled reveal: gifts cannot be unlocked before `reveal_at`. The host
-- types a day and a time in the celebrant's zone; the instant is kept, with
-- the zone it was typed in, so the page can say it back the same way.
ALTER TABLE occasions ADD COLUMN reveal_at INTEGER;
ALTER TABLE occasions ADD COLUMN reveal_zone TEXT
    CHECK (reveal_zone IS NULL OR length(reveal_zone) BETWEEN 1 AND 64);

-- The host's nudges to a quiet member: the newest decides when the next may
-- go (one a day per person). They go with the member's account.
CREATE TABLE occasion_nudges (
    id            INTEGER PRIMARY KEY,
    occasion_id   INTEGER NOT NULL REFERENCES occasions(id) ON DELETE CASCADE,
    user_id       INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    at            INTEGER NOT NULL
) STRICT;
CREATE INDEX occasion_nudges_by_member ON occasion_nudges(occasion_id, user_id, at);
CREATE INDEX occasion_nudges_by_user ON occasion_nudges(user_id);
