-- PostgreSQL twin of ../0024_plate_celebrations_seen.sql.
CREATE TABLE plate_celebrations_seen (
    game_id  BIGINT NOT NULL,
    user_id  BIGINT NOT NULL,
    at       BIGINT NOT NULL,
    PRIMARY KEY (game_id, user_id),
    FOREIGN KEY (game_id, user_id) REFERENCES plate_players(game_id, user_id) ON DELETE CASCADE
);
