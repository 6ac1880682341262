-- Plate games: place notes on spots, and trips.

-- Where a plate was seen, in the spotter's own words ("the rest stop near
-- Amarillo"). Typed, never a position: nothing here comes from a device's
-- location. Empty notes are stored as NULL.
ALTER TABLE plate_spots ADD COLUMN note TEXT CHECK (note IS NULL OR length(note) BETWEEN 1 AND 80);

-- Trips: a game can end, keeping its board as a past trip, and the next
-- trip (a new game with the same players) remembers the one before it.
ALTER TABLE plate_games ADD COLUMN ended_at INTEGER;
ALTER TABLE plate_games ADD COLUMN previous_id INTEGER REFERENCES plate_games(id) ON DELETE SET NULL;
CREATE INDEX plate_games_by_previous ON plate_games(previous_id);
