-- Background work whose effects leave the database (a photo's variants,
-- written to the media directory every instance shares) is claimed here
-- first: one instance holds `name` until `expires_at`. A holder that dies
-- simply stops renewing, and any instance may take the name once it has
-- expired, so the work is done once and never lost.
CREATE TABLE task_leases (
    name        TEXT PRIMARY KEY NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    holder      TEXT NOT NULL CHECK (length(holder) BETWEEN 1 AND 100),
    expires_at  INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
