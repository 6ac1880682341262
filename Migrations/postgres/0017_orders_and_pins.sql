-- PostgreSQL twin of ../0017_orders_and_pins.sql.
CREATE TABLE home_preferences (
    user_id  BIGINT PRIMARY KEY NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    lead     TEXT NOT NULL CHECK (length(lead) BETWEEN 1 AND 40)
);

-- SQLite rebuilds the table to widen this CHECK; PostgreSQL alters it.
ALTER TABLE tally_list_preferences
    DROP CONSTRAINT tally_list_preferences_sort_check,
    ADD CONSTRAINT tally_list_preferences_sort_check CHECK (sort IN ('updated', 'created', 'manual'));

CREATE TABLE tally_positions (
    user_id   BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    tally_id  BIGINT NOT NULL REFERENCES tallies(id) ON DELETE CASCADE,
    position  BIGINT NOT NULL,
    PRIMARY KEY (user_id, tally_id)
);

CREATE TABLE tally_pins (
    user_id   BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    tally_id  BIGINT NOT NULL REFERENCES tallies(id) ON DELETE CASCADE,
    pinned_at BIGINT NOT NULL,
    PRIMARY KEY (user_id, tally_id)
);
CREATE INDEX tally_pins_by_tally ON tally_pins(tally_id);
CREATE INDEX tally_positions_by_tally ON tally_positions(tally_id);
