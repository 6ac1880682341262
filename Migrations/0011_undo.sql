-- Undo for destructive actions that are cheap to take back (a tally reset
-- or deleted, a plate spot taken back, a player removed with their spots).
--
-- What was destroyed is kept here as a snapshot of its rows, not by marking
-- the live rows deleted: a soft delete would have every query, every access
-- rule, the account purge and the reset scheduler learn to skip the dead
-- rows, and one that forgot would show or count something gone. A snapshot
-- touches nothing but the action and its undo, and goes with its window.
--
-- Only the person who acted may undo (`user_id`), only until `expires_at`;
-- an undone entry is deleted, and expired ones are swept (on the next write
-- to this table and by a periodic task). The actor's account going takes
-- their entries with it.
CREATE TABLE undo_entries (
    id          INTEGER PRIMARY KEY,
    user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    -- What kind of action (`tally.delete`) and what it acted on, so a page
    -- can show the notice for its own subject.
    kind        TEXT NOT NULL CHECK (length(kind) BETWEEN 1 AND 40),
    target_id   INTEGER NOT NULL,
    -- "Coffees deleted." — the notice, written when the action was taken.
    message     TEXT NOT NULL,
    -- The rows as they were, as JSON: [{"table", "columns", "rows"}].
    snapshot    TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    CHECK (expires_at >= created_at)
) STRICT;
CREATE INDEX undo_entries_by_user ON undo_entries(user_id, kind, target_id);
CREATE INDEX undo_entries_by_expiry ON undo_entries(expires_at);
