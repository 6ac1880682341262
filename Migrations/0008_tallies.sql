-- Tallies: counters shared between friends, reset on the server.
--
-- A friendship is mutual the moment it is made, so it is stored as two
-- rows, one per direction: "my friends" is then one indexed lookup, and
-- removing it deletes both rows in the same transaction.
CREATE TABLE friendships (
    user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    friend_id   INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (user_id, friend_id),
    CHECK (user_id <> friend_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX friendships_by_friend ON friendships(friend_id);

CREATE TABLE tallies (
    id              INTEGER PRIMARY KEY,
    owner_id        INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name            TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 60),
    count           INTEGER NOT NULL CHECK (count BETWEEN 0 AND 999999999),
    fireworks       INTEGER NOT NULL DEFAULT 1 CHECK (fireworks IN (0, 1)),
    reset_schedule  TEXT NOT NULL DEFAULT 'off' CHECK (reset_schedule IN ('off', 'daily', 'monthly', 'yearly')),
    -- The first local midnight of the next period, in the owner's time zone
    -- when it was computed. The scheduler resets every tally whose instant
    -- has passed and stores the next one in the same statement, which is
    -- what makes a reset happen exactly once per period, restarts included.
    next_reset_at   INTEGER,
    -- The zone `next_reset_at` was computed in; when the owner moves to
    -- another zone the scheduler computes the instant again.
    reset_time_zone TEXT,
    -- Bumped by every change, so "seen" can be compared without relying on
    -- clock resolution.
    version         INTEGER NOT NULL DEFAULT 1,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    -- NULL when Kith itself changed it (a scheduled reset), or once the
    -- person who did has deleted their account.
    updated_by      INTEGER REFERENCES users(id) ON DELETE SET NULL,
    CHECK ((reset_schedule = 'off') = (next_reset_at IS NULL)),
    CHECK ((next_reset_at IS NULL) = (reset_time_zone IS NULL))
) STRICT;
CREATE INDEX tallies_by_owner ON tallies(owner_id);
CREATE INDEX tallies_by_updater ON tallies(updated_by);
CREATE INDEX tallies_due ON tallies(next_reset_at) WHERE next_reset_at IS NOT NULL;

-- Who else sees a tally, and whether they may change its count.
CREATE TABLE tally_shares (
    tally_id    INTEGER NOT NULL REFERENCES tallies(id) ON DELETE CASCADE,
    user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    permission  TEXT NOT NULL CHECK (permission IN ('view', 'edit')),
    PRIMARY KEY (tally_id, user_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX tally_shares_by_user ON tally_shares(user_id);

-- The version of each tally a person last saw: a newer version changed by
-- someone else flashes that person's avatar on the row.
CREATE TABLE tally_views (
    tally_id      INTEGER NOT NULL REFERENCES tallies(id) ON DELETE CASCADE,
    user_id       INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    seen_version  INTEGER NOT NULL,
    PRIMARY KEY (tally_id, user_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX tally_views_by_user ON tally_views(user_id);

-- How a person's list is sorted, remembered across devices.
CREATE TABLE tally_list_preferences (
    user_id  INTEGER PRIMARY KEY NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    sort     TEXT NOT NULL CHECK (sort IN ('updated', 'created'))
) STRICT;
