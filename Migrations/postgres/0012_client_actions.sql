-- PostgreSQL twin of ../0012_client_actions.sql.
CREATE TABLE client_actions (
    user_id     BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    client_id   TEXT NOT NULL CHECK (length(client_id) = 32),
    kind        TEXT NOT NULL CHECK (length(kind) BETWEEN 1 AND 40),
    done_at     BIGINT NOT NULL,
    PRIMARY KEY (user_id, client_id)
);
CREATE INDEX client_actions_by_time ON client_actions(done_at);
