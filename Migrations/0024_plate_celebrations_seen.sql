-- Which players have watched a finished game's celebration, so it plays
-- once per player and game on every device, not once per browser. The page
-- records it with a POST after playing; a GET never writes here. A row goes
-- with its player's place in the game (and so with the game and the account).
CREATE TABLE plate_celebrations_seen (
    game_id  INTEGER NOT NULL,
    user_id  INTEGER NOT NULL,
    at       INTEGER NOT NULL,
    PRIMARY KEY (game_id, user_id),
    FOREIGN KEY (game_id, user_id) REFERENCES plate_players(game_id, user_id) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;
