-- PostgreSQL twin of ../0016_tally_goals.sql.
CREATE TABLE tally_goals (
    tally_id    BIGINT PRIMARY KEY NOT NULL REFERENCES tallies(id) ON DELETE CASCADE,
    target      BIGINT NOT NULL CHECK (target BETWEEN 1 AND 999999999),
    period      TEXT NOT NULL CHECK (period IN ('day', 'week', 'month'))
);
