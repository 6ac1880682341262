-- PostgreSQL twin of ../0015_tally_step.sql.
ALTER TABLE tallies ADD COLUMN step BIGINT NOT NULL DEFAULT 1 CHECK (step IN (1, 2, 5, 10));
