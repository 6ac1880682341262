-- Where a plate was seen, in the spotter's own words ("the rest stop near
-- Amarillo"). Typed, never a position: nothing here comes from a device's
-- location. Empty notes are stored as NULL.
ALTER TABLE plate_spots ADD COLUMN note TEXT CHECK (note IS NULL OR length(note) BETWEEN 1 AND 80);
