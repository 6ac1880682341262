-- Where things sit for each person: which home section leads, their own
-- order of the tally list, and the tallies they pinned to the home screen.

-- The section a person put first on the home page, by the name its
-- feature registered (`tallies`); without a row, sections with something
-- in them come first.
CREATE TABLE home_preferences (
    user_id  INTEGER PRIMARY KEY NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    lead     TEXT NOT NULL CHECK (length(lead) BETWEEN 1 AND 40)
) STRICT;

-- A list sorted by hand is a third sort. SQLite cannot widen a CHECK in
-- place, so the table is rebuilt with its rows.
CREATE TABLE tally_list_preferences_new (
    user_id  INTEGER PRIMARY KEY NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    sort     TEXT NOT NULL CHECK (sort IN ('updated', 'created', 'manual'))
) STRICT;
INSERT INTO tally_list_preferences_new (user_id, sort) SELECT user_id, sort FROM tally_list_preferences;
DROP TABLE tally_list_preferences;
ALTER TABLE tally_list_preferences_new RENAME TO tally_list_preferences;

-- A person's own order of the tallies they see, lowest first. A tally
-- without a row (new, or newly shared) comes before every placed one.
CREATE TABLE tally_positions (
    user_id   INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    tally_id  INTEGER NOT NULL REFERENCES tallies(id) ON DELETE CASCADE,
    position  INTEGER NOT NULL,
    PRIMARY KEY (user_id, tally_id)
) STRICT;

-- Tallies a person pinned: their installed app's shortcuts.
CREATE TABLE tally_pins (
    user_id   INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    tally_id  INTEGER NOT NULL REFERENCES tallies(id) ON DELETE CASCADE,
    pinned_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, tally_id)
) STRICT;
CREATE INDEX tally_pins_by_tally ON tally_pins(tally_id);
CREATE INDEX tally_positions_by_tally ON tally_positions(tally_id);
