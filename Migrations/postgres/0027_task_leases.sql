-- PostgreSQL twin of ../0027_task_leases.sql.
CREATE TABLE task_leases (
    name        TEXT PRIMARY KEY NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    holder      TEXT NOT NULL CHECK (length(holder) BETWEEN 1 AND 100),
    expires_at  BIGINT NOT NULL
);
