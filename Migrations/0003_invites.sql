-- Invite codes: one code space for all of Kith. A code maps to what it opens
-- (a kind, registered by a feature, and the id of the occasion or game).
-- Retired codes keep their row, so a rotated code never opens anything again
-- and is never handed out twice.
CREATE TABLE invite_codes (
    code        TEXT PRIMARY KEY NOT NULL CHECK (length(code) = 6),
    kind        TEXT NOT NULL,
    target_id   INTEGER NOT NULL,
    -- Who shared it, for "Dad invited you"; kept when the code outlives them.
    created_by  INTEGER REFERENCES users(id) ON DELETE SET NULL,
    created_at  INTEGER NOT NULL,
    retired_at  INTEGER
) STRICT;
CREATE INDEX invite_codes_by_target ON invite_codes(kind, target_id) WHERE retired_at IS NULL;

-- Failed code lookups per address, for the throttle. Successful lookups are
-- never counted: a whole party opening one link must never be locked out.
CREATE TABLE invite_lookup_failures (
    id       INTEGER PRIMARY KEY,
    address  TEXT NOT NULL,
    at       INTEGER NOT NULL
) STRICT;
CREATE INDEX invite_lookup_failures_by_address ON invite_lookup_failures(address, at);
