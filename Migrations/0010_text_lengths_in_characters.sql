-- Text limits are counted in Characters (what a reader sees as one letter or
-- one emoji), but SQLite's length() counts code points, and one emoji can be
-- many: a family is 7. The CHECKs below now allow 12 code points per
-- Character of each limit (TextPolicy.scalarsPerCharacter), so every value the
-- forms accept is stored, and the forms remain what enforces the limit.
--
-- Widening a CHECK cannot make a stored row invalid, so the table definitions
-- are edited in place, the procedure SQLite documents for loosening
-- constraints. Rebuilding the tables instead would DROP them while foreign
-- keys are enforced (migrations run inside a transaction, where they cannot
-- be turned off), and that DROP would cascade-delete every child row.
PRAGMA writable_schema = ON;

UPDATE sqlite_schema SET sql = replace(sql, 'CHECK (length(display_name) BETWEEN 1 AND 60)', 'CHECK (length(display_name) BETWEEN 1 AND 720)')
    WHERE type = 'table' AND name IN ('users', 'occasion_members');
UPDATE sqlite_schema SET sql = replace(replace(sql,
        'CHECK (length(name) BETWEEN 1 AND 80)', 'CHECK (length(name) BETWEEN 1 AND 960)'),
        'CHECK (length(celebrant_name) BETWEEN 1 AND 60)', 'CHECK (length(celebrant_name) BETWEEN 1 AND 720)')
    WHERE type = 'table' AND name = 'occasions';
UPDATE sqlite_schema SET sql = replace(replace(replace(replace(sql,
        'CHECK (length(title) BETWEEN 1 AND 120)', 'CHECK (length(title) BETWEEN 1 AND 1440)'),
        'CHECK (length(description) <= 4000)', 'CHECK (length(description) <= 48000)'),
        'length(option_b) BETWEEN 1 AND 120)', 'length(option_b) BETWEEN 1 AND 1440)'),
        'length(proof_text) <= 2000)', 'length(proof_text) <= 24000)')
    WHERE type = 'table' AND name = 'occasion_challenges';
UPDATE sqlite_schema SET sql = replace(sql, 'CHECK (length(body) <= 20000)', 'CHECK (length(body) <= 240000)')
    WHERE type = 'table' AND name = 'occasion_gifts';
UPDATE sqlite_schema SET sql = replace(sql, 'CHECK (length(reason) BETWEEN 1 AND 200)', 'CHECK (length(reason) BETWEEN 1 AND 2400)')
    WHERE type = 'table' AND name = 'occasion_adjustments';
UPDATE sqlite_schema SET sql = replace(sql, 'CHECK (length(reason) <= 500)', 'CHECK (length(reason) <= 6000)')
    WHERE type = 'table' AND name = 'occasion_reports';
UPDATE sqlite_schema SET sql = replace(sql, 'CHECK (length(name) BETWEEN 1 AND 60)', 'CHECK (length(name) BETWEEN 1 AND 720)')
    WHERE type = 'table' AND name IN ('plate_games', 'tallies');

-- Reload this connection's copy of the schema…
PRAGMA writable_schema = RESET;
-- …and change the schema cookie (any DDL does), so every other connection
-- reloads it too before its next statement.
CREATE TABLE text_lengths_schema_bump (x);
DROP TABLE text_lengths_schema_bump;
