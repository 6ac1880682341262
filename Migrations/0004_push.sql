-- Web Push: the browsers that asked to be notified even when Kith is closed.
--
-- `endpoint` is the push service's URL for one browser (a capability: whoever
-- knows it can send to that browser, so it is never shown); `p256dh` and
-- `auth` are the browser's message keys, base64url as the Push API gives them.
-- A browser re-subscribing under another account moves the row.
CREATE TABLE push_subscriptions (
    id          INTEGER PRIMARY KEY,
    user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    endpoint    TEXT NOT NULL UNIQUE CHECK (length(endpoint) BETWEEN 1 AND 2048),
    p256dh      TEXT NOT NULL,
    auth        TEXT NOT NULL,
    created_at  INTEGER NOT NULL
) STRICT;
CREATE INDEX push_subscriptions_by_user ON push_subscriptions(user_id);
