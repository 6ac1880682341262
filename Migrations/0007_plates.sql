-- Plate games: the road-trip licence-plate game.
--
-- One dataset, two games: a spot is one row (game, player, region, time),
-- written the same way whatever the game's mode. Collaborative boards dedupe
-- spots by region (first spotter credited), competitive boards group them by
-- player; scores are counted from the spots in each query, never stored.
-- Switching mode changes only what pages render.

-- Everything a plate can come from. A ruleset says which regions a game
-- counts: the 50 states, or the 50 and DC. More rulesets (Canadian
-- provinces) are rows, not code.
CREATE TABLE plate_regions (
    code  TEXT PRIMARY KEY NOT NULL CHECK (length(code) = 2),
    fips  TEXT NOT NULL UNIQUE,
    name  TEXT NOT NULL UNIQUE
) STRICT, WITHOUT ROWID;

INSERT INTO plate_regions (code, fips, name) VALUES
    ('AL', '01', 'Alabama'),
    ('AK', '02', 'Alaska'),
    ('AZ', '04', 'Arizona'),
    ('AR', '05', 'Arkansas'),
    ('CA', '06', 'California'),
    ('CO', '08', 'Colorado'),
    ('CT', '09', 'Connecticut'),
    ('DE', '10', 'Delaware'),
    ('DC', '11', 'District of Columbia'),
    ('FL', '12', 'Florida'),
    ('GA', '13', 'Georgia'),
    ('HI', '15', 'Hawaii'),
    ('ID', '16', 'Idaho'),
    ('IL', '17', 'Illinois'),
    ('IN', '18', 'Indiana'),
    ('IA', '19', 'Iowa'),
    ('KS', '20', 'Kansas'),
    ('KY', '21', 'Kentucky'),
    ('LA', '22', 'Louisiana'),
    ('ME', '23', 'Maine'),
    ('MD', '24', 'Maryland'),
    ('MA', '25', 'Massachusetts'),
    ('MI', '26', 'Michigan'),
    ('MN', '27', 'Minnesota'),
    ('MS', '28', 'Mississippi'),
    ('MO', '29', 'Missouri'),
    ('MT', '30', 'Montana'),
    ('NE', '31', 'Nebraska'),
    ('NV', '32', 'Nevada'),
    ('NH', '33', 'New Hampshire'),
    ('NJ', '34', 'New Jersey'),
    ('NM', '35', 'New Mexico'),
    ('NY', '36', 'New York'),
    ('NC', '37', 'North Carolina'),
    ('ND', '38', 'North Dakota'),
    ('OH', '39', 'Ohio'),
    ('OK', '40', 'Oklahoma'),
    ('OR', '41', 'Oregon'),
    ('PA', '42', 'Pennsylvania'),
    ('RI', '44', 'Rhode Island'),
    ('SC', '45', 'South Carolina'),
    ('SD', '46', 'South Dakota'),
    ('TN', '47', 'Tennessee'),
    ('TX', '48', 'Texas'),
    ('UT', '49', 'Utah'),
    ('VT', '50', 'Vermont'),
    ('VA', '51', 'Virginia'),
    ('WA', '53', 'Washington'),
    ('WV', '54', 'West Virginia'),
    ('WI', '55', 'Wisconsin'),
    ('WY', '56', 'Wyoming');

CREATE TABLE plate_rulesets (
    name   TEXT PRIMARY KEY NOT NULL,
    label  TEXT NOT NULL
) STRICT, WITHOUT ROWID;

INSERT INTO plate_rulesets (name, label) VALUES
    ('us50', 'The 50 states'),
    ('us50dc', 'The 50 states and DC');

CREATE TABLE plate_ruleset_regions (
    ruleset  TEXT NOT NULL REFERENCES plate_rulesets(name),
    region   TEXT NOT NULL REFERENCES plate_regions(code),
    PRIMARY KEY (ruleset, region)
) STRICT, WITHOUT ROWID;

INSERT INTO plate_ruleset_regions (ruleset, region)
    SELECT 'us50', code FROM plate_regions WHERE code <> 'DC';
INSERT INTO plate_ruleset_regions (ruleset, region)
    SELECT 'us50dc', code FROM plate_regions;

CREATE TABLE plate_games (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 60),
    mode        TEXT NOT NULL CHECK (mode IN ('competitive', 'collaborative')),
    ruleset     TEXT NOT NULL DEFAULT 'us50' REFERENCES plate_rulesets(name),
    created_at  INTEGER NOT NULL
) STRICT;

-- Who plays. Exactly one host per game (the partial unique index); colours
-- tell players apart on boards drawn in player colours.
CREATE TABLE plate_players (
    game_id    INTEGER NOT NULL REFERENCES plate_games(id) ON DELETE CASCADE,
    user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    role       TEXT NOT NULL CHECK (role IN ('host', 'player')),
    colour     INTEGER NOT NULL CHECK (colour BETWEEN 0 AND 7),
    joined_at  INTEGER NOT NULL,
    PRIMARY KEY (game_id, user_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX plate_players_by_user ON plate_players(user_id);
CREATE UNIQUE INDEX plate_players_one_host ON plate_players(game_id) WHERE role = 'host';

-- Spotting the same plate twice is harmless: one row per player and region.
-- Honor system in v1: `proof` stays NULL, kept for a photo or a note later.
CREATE TABLE plate_spots (
    id          INTEGER PRIMARY KEY,
    game_id     INTEGER NOT NULL REFERENCES plate_games(id) ON DELETE CASCADE,
    user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    region      TEXT NOT NULL REFERENCES plate_regions(code),
    spotted_at  INTEGER NOT NULL,
    proof       TEXT,
    UNIQUE (game_id, user_id, region),
    FOREIGN KEY (game_id, user_id) REFERENCES plate_players(game_id, user_id) ON DELETE CASCADE
) STRICT;
CREATE INDEX plate_spots_by_game ON plate_spots(game_id, spotted_at);
CREATE INDEX plate_spots_by_user ON plate_spots(user_id);
