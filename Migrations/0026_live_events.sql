-- Live events shared by every instance on one PostgreSQL database (see
-- Sources/KithApp/Live/LiveRelay.swift). A single SQLite process keeps its
-- events in memory and never writes here; the table exists so both schemas
-- stay one.
CREATE TABLE live_events (
    id         INTEGER PRIMARY KEY,
    topic      TEXT NOT NULL,
    -- The event as streamed: {"topic":…,"fragments":[…]}, ids only, never markup.
    data       TEXT NOT NULL
) STRICT;
