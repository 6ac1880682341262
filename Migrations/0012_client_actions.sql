-- Actions a page made while it may have been offline (a tally tap, a plate
-- spot) carry an id the page drew at random, and may be sent again: the
-- page cannot tell whether an answer lost on the way meant "done". The id is
-- recorded in the same transaction as the action, so a second arrival finds
-- it and changes nothing. Ids are per person: one person's id never blocks
-- another's. Rows older than a week are swept; no page keeps a queued action
-- that long.
CREATE TABLE client_actions (
    user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    client_id   TEXT NOT NULL CHECK (length(client_id) = 32),
    -- What the action was ("tally.increment", "plate.spot"), for reading the
    -- table, never for deciding anything.
    kind        TEXT NOT NULL CHECK (length(kind) BETWEEN 1 AND 40),
    done_at     INTEGER NOT NULL,
    PRIMARY KEY (user_id, client_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX client_actions_by_time ON client_actions(done_at);
