-- Notifications: the inbox, the pending digests that feed it, and mutes.
--
-- A feature records an event; each recipient gets (or extends) one pending
-- digest per scope and kind. The sweeper turns a digest into one inbox row
-- once its scope has been quiet for a while, or its first event is old
-- enough, and deletes the digest. Pending digests are rows, so a restart
-- delays them by at most one sweep and loses none.

-- What a person sees in their inbox: one row per delivered digest.
CREATE TABLE notifications (
    id            INTEGER PRIMARY KEY,
    user_id       INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind          TEXT NOT NULL,
    -- `game:12`: what the notification is about, and what muting silences.
    scope         TEXT NOT NULL,
    title         TEXT NOT NULL,
    body          TEXT NOT NULL,
    -- A local path (`/games/12`); checked again before redirecting to it.
    url           TEXT NOT NULL,
    event_count   INTEGER NOT NULL CHECK (event_count >= 1),
    created_at    INTEGER NOT NULL,
    read_at       INTEGER
) STRICT;
CREATE INDEX notifications_by_user ON notifications(user_id, id);
-- The nav badge on every page counts these: a partial index keeps that
-- count proportional to what is unread, not to the whole inbox.
CREATE INDEX notifications_unread_by_user ON notifications(user_id) WHERE read_at IS NULL;

-- One pending digest per recipient, scope and kind.
CREATE TABLE notification_digests (
    id              INTEGER PRIMARY KEY,
    user_id         INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind            TEXT NOT NULL,
    scope           TEXT NOT NULL,
    scope_title     TEXT NOT NULL,
    first_event_at  INTEGER NOT NULL,
    last_event_at   INTEGER NOT NULL,
    UNIQUE (user_id, scope, kind)
) STRICT;
CREATE INDEX notification_digests_by_scope ON notification_digests(scope);

-- The events a digest coalesces, oldest first by id.
CREATE TABLE notification_digest_events (
    id             INTEGER PRIMARY KEY,
    digest_id      INTEGER NOT NULL REFERENCES notification_digests(id) ON DELETE CASCADE,
    -- NULL when Kith itself acted (a timer, an unlock nobody clicked).
    actor_user_id  INTEGER REFERENCES users(id) ON DELETE CASCADE,
    actor_name     TEXT NOT NULL,
    subject        TEXT NOT NULL,
    url            TEXT NOT NULL,
    at             INTEGER NOT NULL
) STRICT;
CREATE INDEX notification_digest_events_by_digest ON notification_digest_events(digest_id);
CREATE INDEX notification_digest_events_by_actor ON notification_digest_events(actor_user_id);

-- When each scope last saw an event, whoever it reached: the quiet period
-- is the scope's, so a recipient's own activity in a game (which never
-- lands in their own digest) still keeps the game from being quiet.
-- Rows go once no pending digest names the scope.
CREATE TABLE notification_scopes (
    scope          TEXT PRIMARY KEY NOT NULL,
    last_event_at  INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

-- Scopes a person asked to hear nothing more about.
CREATE TABLE notification_mutes (
    user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    scope       TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (user_id, scope)
) STRICT, WITHOUT ROWID;
