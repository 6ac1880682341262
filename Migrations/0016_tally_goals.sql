-- An optional goal per tally: reach `target` within each day, week or
-- month, in the owner's time zone. Progress and streaks are computed from
-- `tally_history`, so nothing here changes when the count does; a tally
-- without a goal has no row.
CREATE TABLE tally_goals (
    tally_id    INTEGER PRIMARY KEY NOT NULL REFERENCES tallies(id) ON DELETE CASCADE,
    target      INTEGER NOT NULL CHECK (target BETWEEN 1 AND 999999999),
    period      TEXT NOT NULL CHECK (period IN ('day', 'week', 'month'))
) STRICT;
