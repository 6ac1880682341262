-- How much one tap adds, chosen by the tally's owner. The server adds it
-- (a queued tap carries no amount), so every device counts the same.
ALTER TABLE tallies ADD COLUMN step INTEGER NOT NULL DEFAULT 1 CHECK (step IN (1, 2, 5, 10));
