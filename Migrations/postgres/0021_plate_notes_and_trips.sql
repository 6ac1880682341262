-- PostgreSQL twin of ../0021_plate_notes_and_trips.sql.
ALTER TABLE plate_spots ADD COLUMN note TEXT CHECK (note IS NULL OR length(note) BETWEEN 1 AND 80);
ALTER TABLE plate_games ADD COLUMN ended_at BIGINT;
ALTER TABLE plate_games ADD COLUMN previous_id BIGINT REFERENCES plate_games(id) ON DELETE SET NULL;
CREATE INDEX plate_games_by_previous ON plate_games(previous_id);
