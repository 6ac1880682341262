-- Every change to a tally's count, as it happened: who, when, what kind of
-- change and the value after it. The page shows it, a person takes back
-- their own last change from it, and goals, streaks and stats are computed
-- from it rather than from the count alone (a reset keeps the value it
-- cleared as the row before it).
CREATE TABLE tally_history (
    id          INTEGER PRIMARY KEY,
    tally_id    INTEGER NOT NULL REFERENCES tallies(id) ON DELETE CASCADE,
    at          INTEGER NOT NULL,
    -- NULL when Kith itself changed it (a scheduled reset), or once the
    -- person who did has deleted their account (then `by_former` is 1).
    user_id     INTEGER REFERENCES users(id) ON DELETE SET NULL,
    by_former   INTEGER NOT NULL DEFAULT 0 CHECK (by_former IN (0, 1)),
    -- `increment` and `decrement` are taps (by any step); `set` is a count
    -- typed in; `reset` is to 0, by a person or on schedule; `undo` takes a
    -- change back.
    kind        TEXT NOT NULL CHECK (kind IN ('increment', 'decrement', 'set', 'reset', 'undo')),
    -- value_after - the value before.
    delta       INTEGER NOT NULL,
    value_after INTEGER NOT NULL CHECK (value_after BETWEEN 0 AND 999999999),
    -- The tally's version after the change: the history and the count agree
    -- on what came first, whatever the clock says.
    version     INTEGER NOT NULL
) STRICT;
CREATE INDEX tally_history_by_tally ON tally_history(tally_id, id);
CREATE INDEX tally_history_by_user ON tally_history(user_id);
