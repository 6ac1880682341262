-- Accounts: people, their sessions and the ways back in.
--
-- A guest is a user without a username or password; claiming the account
-- fills both in and keeps the id, so every membership stays.
CREATE TABLE users (
    id                    INTEGER PRIMARY KEY,
    display_name          TEXT NOT NULL CHECK (length(display_name) BETWEEN 1 AND 60),
    -- As typed; `username_key` is its lowercase form, unique, so `Dad_Ross`
    -- and `dad_ross` are one name.
    username              TEXT,
    username_key          TEXT UNIQUE,
    password_hash         TEXT,
    email                 TEXT,
    time_zone             TEXT NOT NULL,
    avatar                TEXT NOT NULL,
    avatar_colour         TEXT NOT NULL,
    theme                 TEXT NOT NULL DEFAULT 'system' CHECK (theme IN ('system', 'light', 'dark')),
    number_style          TEXT NOT NULL DEFAULT 'arabic' CHECK (number_style IN ('arabic', 'roman', 'stick')),
    -- Set after signing in with a recovery code or a reset link.
    must_change_password  INTEGER NOT NULL DEFAULT 0 CHECK (must_change_password IN (0, 1)),
    created_at            INTEGER NOT NULL,
    CHECK ((username IS NULL) = (username_key IS NULL)),
    CHECK ((username IS NULL) = (password_hash IS NULL))
) STRICT;

-- Only the SHA-256 of a session token is stored: a copy of this table signs nobody in.
CREATE TABLE sessions (
    id            INTEGER PRIMARY KEY,
    user_id       INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    token_hash    TEXT NOT NULL UNIQUE,
    -- The synchronizer token every form of this session carries.
    csrf_token    TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    last_seen_at  INTEGER NOT NULL,
    user_agent    TEXT NOT NULL DEFAULT '',
    address       TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX sessions_by_user ON sessions(user_id);

-- One-time codes shown once at sign-up (and on demand), stored hashed.
CREATE TABLE recovery_codes (
    id          INTEGER PRIMARY KEY,
    user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    code_hash   TEXT NOT NULL,
    used_at     INTEGER
) STRICT;
CREATE INDEX recovery_codes_by_user ON recovery_codes(user_id);

-- Single-use sign-in links: "continue in another browser" and operator resets.
CREATE TABLE sign_in_links (
    token_hash    TEXT PRIMARY KEY NOT NULL,
    user_id       INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    purpose       TEXT NOT NULL CHECK (purpose IN ('continue', 'reset')),
    expires_at    INTEGER NOT NULL,
    used_at       INTEGER
) STRICT;

-- Failed sign-ins, for the throttle: per username and per address. Only
-- failures are kept, so a party behind one address is never locked out by
-- its own successful sign-ins.
CREATE TABLE sign_in_failures (
    id      INTEGER PRIMARY KEY,
    scope   TEXT NOT NULL,
    at      INTEGER NOT NULL
) STRICT;
CREATE INDEX sign_in_failures_by_scope ON sign_in_failures(scope, at);
