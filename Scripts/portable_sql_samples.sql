-- The store statements rewritten to run on both SQLite and PostgreSQL, with
-- literals for their parameters, over a small fixture:
--   python3 Scripts/portable_sql.py Scripts/portable_sql_samples.sql
-- Each must return the same rows on both stores.

INSERT INTO users (display_name, time_zone, avatar, avatar_colour, created_at)
VALUES ('bea', 'UTC', 'a', 'c', 100), ('Al', 'UTC', 'a', 'c', 100), ('cy', 'UTC', 'a', 'c', 100) RETURNING id;
INSERT INTO sessions (user_id, token_hash, csrf_token, created_at, last_seen_at) VALUES (1, 'h1', 'c', 1, 1), (1, 'h2', 'c', 1, 1);
SELECT id FROM sessions WHERE user_id = 1 AND id IS DISTINCT FROM 2;
SELECT id FROM sessions WHERE user_id = 1 AND id IS DISTINCT FROM NULL ORDER BY id;
INSERT INTO friendships (user_id, friend_id, created_at) VALUES (3, 1, 1), (3, 2, 1);
SELECT u.id FROM friendships f JOIN users u ON u.id = f.friend_id WHERE f.user_id = 3 ORDER BY lower(u.display_name), u.id;

-- Media: upserts in place of INSERT OR IGNORE / OR REPLACE, and group_concat.
INSERT INTO media_files (sha256, mime_type, kind, byte_count, created_at)
VALUES ('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'image/jpeg', 'photo', 10, 1) ON CONFLICT DO NOTHING;
INSERT INTO media_files (sha256, mime_type, kind, byte_count, created_at)
VALUES ('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'image/png', 'photo', 99, 2) ON CONFLICT DO NOTHING;
SELECT mime_type, byte_count FROM media_files;
INSERT INTO media_variants (source_sha256, width, height, format, sha256, byte_count)
VALUES ('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 320, 200, 'webp', 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', 5)
ON CONFLICT (source_sha256, width, format) DO UPDATE SET
    height = excluded.height, sha256 = excluded.sha256, byte_count = excluded.byte_count;
INSERT INTO media_variants (source_sha256, width, height, format, sha256, byte_count)
VALUES ('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 320, 201, 'webp', 'cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc', 6)
ON CONFLICT (source_sha256, width, format) DO UPDATE SET
    height = excluded.height, sha256 = excluded.sha256, byte_count = excluded.byte_count;
SELECT (SELECT group_concat(v.width || ' ' || v.height || ' ' || v.format || ' ' || v.sha256, ',')
        FROM media_variants v WHERE v.source_sha256 = f.sha256) AS photo_variants FROM media_files f;

-- Notifications: CASE in place of two-argument max(), qualified in the upsert.
INSERT INTO notification_scopes (scope, last_event_at) VALUES ('game:1', 50)
ON CONFLICT (scope) DO UPDATE SET last_event_at = CASE
    WHEN excluded.last_event_at > notification_scopes.last_event_at THEN excluded.last_event_at
    ELSE notification_scopes.last_event_at END;
INSERT INTO notification_scopes (scope, last_event_at) VALUES ('game:1', 40)
ON CONFLICT (scope) DO UPDATE SET last_event_at = CASE
    WHEN excluded.last_event_at > notification_scopes.last_event_at THEN excluded.last_event_at
    ELSE notification_scopes.last_event_at END;
SELECT last_event_at FROM notification_scopes;
INSERT INTO notification_digests (user_id, kind, scope, scope_title, first_event_at, last_event_at)
SELECT 1, 'spot', 'game:1', 'Trip', 60, 60
WHERE NOT EXISTS (SELECT 1 FROM notification_mutes WHERE user_id = 1 AND scope = 'game:1')
ON CONFLICT (user_id, scope, kind) DO UPDATE SET
    last_event_at = CASE WHEN excluded.last_event_at > notification_digests.last_event_at
        THEN excluded.last_event_at ELSE notification_digests.last_event_at END,
    scope_title = excluded.scope_title
RETURNING id;
SELECT d.id FROM notification_digests d LEFT JOIN notification_scopes s ON s.scope = d.scope
WHERE (d.last_event_at <= 70 AND coalesce(s.last_event_at, d.last_event_at) <= 70) OR d.first_event_at <= 0
ORDER BY d.first_event_at, d.id LIMIT 10;
INSERT INTO notifications (user_id, kind, scope, title, body, url, event_count, created_at)
VALUES (1, 'spot', 'game:1', 't', 'b', '/', 1, 1) RETURNING id;

-- Occasions: truth values as 0/1, upserts, the host's finale rule, append-only.
INSERT INTO occasions (name, kind, celebrant_name, date, created_at) VALUES ('Party', 'birthday', 'Bea', '2026-12-24', 1) RETURNING id;
INSERT INTO occasion_members (occasion_id, user_id, role, display_name, joined_at, joined_via)
SELECT 1, id, 'host', display_name, 5, 'created' FROM users WHERE id = 2 ON CONFLICT DO NOTHING;
INSERT INTO occasion_members (occasion_id, user_id, role, display_name, joined_at, joined_via)
SELECT 1, id, 'host', display_name, 5, 'ABCDEF' FROM users WHERE id = 3 ON CONFLICT DO NOTHING;
INSERT INTO occasion_members (occasion_id, user_id, role, display_name, joined_at, joined_via)
SELECT 1, id, 'contributor', display_name, 6, 'ABCDEF' FROM users WHERE id = 3 ON CONFLICT DO NOTHING;
SELECT user_id, role FROM occasion_members ORDER BY user_id;
INSERT INTO occasion_challenges (occasion_id, kind, author_id, title, description, points, created_at)
VALUES (1, 'dare', 3, 'Sing', '', 10, 1)
ON CONFLICT (occasion_id, author_id) WHERE kind = 'dare' DO UPDATE
SET title = excluded.title, description = excluded.description, points = excluded.points
WHERE occasion_challenges.discovered_at IS NULL AND occasion_challenges.completed_at IS NULL;
INSERT INTO occasion_challenges (occasion_id, kind, author_id, title, description, points, created_at)
VALUES (1, 'dare', 3, 'Dance', '', 12, 2)
ON CONFLICT (occasion_id, author_id) WHERE kind = 'dare' DO UPDATE
SET title = excluded.title, description = excluded.description, points = excluded.points
WHERE occasion_challenges.discovered_at IS NULL AND occasion_challenges.completed_at IS NULL;
SELECT title, points FROM occasion_challenges;
SELECT m.user_id,
    CASE WHEN EXISTS (SELECT 1 FROM occasion_challenges c
            WHERE c.occasion_id = m.occasion_id AND c.kind = 'dare' AND c.author_id = m.user_id) THEN 1 ELSE 0 END AS has_dare
FROM occasion_members m WHERE m.occasion_id = 1 ORDER BY m.user_id;
INSERT INTO occasion_gifts (occasion_id, author_id, created_at) VALUES (1, 3, 7) RETURNING id;
INSERT INTO occasion_gifts (occasion_id, author_id, kind, body, created_at) VALUES (1, 3, 'letter', 'Hi', 8)
ON CONFLICT (occasion_id, author_id) DO UPDATE SET body = excluded.body WHERE occasion_gifts.state = 'draft';
SELECT kind, body, state FROM occasion_gifts;
UPDATE occasion_gifts SET state = 'on_offer', cost = 5, submitted_at = 9 WHERE id = 1;
UPDATE occasion_gifts SET body = 'changed' WHERE id = 1;
INSERT INTO occasion_media (occasion_id, gift_id, uploader_id, sha256, created_at)
VALUES (1, 1, 3, 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 9);
-- (PostgreSQL's identity spent an id on the upsert above that updated: ids
-- have gaps there, so these name the gift by its author.)
INSERT INTO occasion_gifts (occasion_id, author_id, created_at) VALUES (1, 2, 7);
INSERT INTO occasion_media (occasion_id, gift_id, uploader_id, sha256, created_at)
SELECT 1, id, 2, 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 9 FROM occasion_gifts WHERE author_id = 2;
UPDATE occasion_gifts SET state = 'submitted', submitted_at = 9 WHERE author_id = 2;
DELETE FROM occasion_media WHERE gift_id = (SELECT id FROM occasion_gifts WHERE author_id = 2);
SELECT count(*) FROM occasion_media;
SELECT body FROM occasion_gifts;
UPDATE occasions SET finale_at = 10 WHERE id = 1 AND finale_at IS NULL AND 1 = 1;
INSERT INTO occasion_adjustments (occasion_id, delta, reason, actor_id, at) VALUES (1, 5, 'why', 2, 11) RETURNING id;
INSERT INTO occasion_timeline (occasion_id, kind, subject_id, points, by_host, at) VALUES (1, 'adjustment', 1, 5, 1, 11);
UPDATE occasion_timeline SET points = 6;
DELETE FROM occasion_timeline;
SELECT t.id, CASE WHEN d.subject_id IS NOT NULL THEN 1 ELSE 0 END AS departed FROM occasion_timeline t
LEFT JOIN occasion_departed_subjects d ON d.occasion_id = t.occasion_id AND d.kind = t.kind AND d.subject_id = t.subject_id;
INSERT INTO occasion_departed_subjects (occasion_id, kind, subject_id, gift_kind)
SELECT occasion_id, kind, id, NULL FROM occasion_challenges WHERE author_id = 3
UNION ALL
SELECT occasion_id, 'gift', id, kind FROM occasion_gifts WHERE author_id = 3
ON CONFLICT DO NOTHING;
INSERT INTO occasion_departed_subjects (occasion_id, kind, subject_id, gift_kind)
SELECT occasion_id, kind, id, NULL FROM occasion_challenges WHERE author_id = 3
UNION ALL
SELECT occasion_id, 'gift', id, kind FROM occasion_gifts WHERE author_id = 3
ON CONFLICT DO NOTHING;
SELECT occasion_id, kind, subject_id, gift_kind FROM occasion_departed_subjects ORDER BY kind;
UPDATE occasion_gifts SET state = 'unlocked', unlocked_at = 12 WHERE id = 1;
INSERT INTO occasion_reactions (occasion_id, gift_id, user_id, emoji, at) VALUES (1, 1, 2, 'heart', 1), (1, 1, 3, 'heart', 1), (1, 1, 3, 'wow', 1);
SELECT emoji, count(*) AS n, max(CASE WHEN user_id = 2 THEN 1 ELSE 0 END) AS mine FROM occasion_reactions
WHERE gift_id = 1 GROUP BY emoji ORDER BY emoji;
-- As the account purge does: the gifts go first (their media with them,
-- after each gift row is gone), then the emptied occasion.
DELETE FROM occasion_gifts WHERE author_id IN (2, 3);
SELECT count(*) FROM occasion_media;
DELETE FROM occasions WHERE id = 1;
SELECT count(*) FROM occasion_timeline;

-- Plates: a derived table named, grouping by keys, no LIMIT -1.
INSERT INTO plate_games (name, mode, ruleset, scoring, created_at) VALUES ('Trip', 'competitive', 'us50dc', 'rarity', 1) RETURNING id;
INSERT INTO plate_players (game_id, user_id, role, colour, joined_at) VALUES (1, 1, 'host', 0, 1), (1, 2, 'player', 1, 2);
INSERT INTO plate_spots (game_id, user_id, region, spotted_at, note) VALUES (1, 1, 'TX', 5, NULL), (1, 2, 'HI', 6, NULL), (1, 2, 'TX', 7, 'x');
SELECT p.user_id, count(r.region) AS score, CAST(coalesce(sum(r.points), 0) AS BIGINT) AS points
FROM plate_players p
JOIN plate_games g ON g.id = p.game_id
JOIN users u ON u.id = p.user_id
LEFT JOIN plate_spots s ON s.game_id = p.game_id AND s.user_id = p.user_id
LEFT JOIN plate_ruleset_regions r ON r.ruleset = g.ruleset AND r.region = s.region
WHERE p.game_id = 1
GROUP BY p.game_id, p.user_id, u.id, g.id
ORDER BY CASE g.scoring WHEN 'rarity' THEN coalesce(sum(r.points), 0) ELSE count(r.region) END DESC, p.joined_at, p.user_id;
SELECT * FROM (
    SELECT s.id, s.region, row_number() OVER (PARTITION BY s.region ORDER BY s.spotted_at, s.id) AS position
    FROM plate_spots s WHERE s.game_id = 1) AS firsts
WHERE position = 1 ORDER BY id;
SELECT s.id FROM plate_spots s WHERE s.game_id = 1 ORDER BY s.spotted_at, s.id LIMIT 9223372036854775807;
INSERT INTO plate_games (name, mode, ruleset, created_at, previous_id)
SELECT name, mode, ruleset, 9, id FROM plate_games WHERE id = 1 RETURNING id;

-- Tallies: CASE in place of min()/max(), a typed NULL test, a typed VALUES list.
INSERT INTO tallies (owner_id, name, count, fireworks, reset_schedule, next_reset_at, reset_time_zone, created_at, updated_at, updated_by)
VALUES (1, 'Coffee', 3, 1, 'daily', 1000, 'UTC', 1, 1, 1) RETURNING id;
INSERT INTO tally_views (tally_id, user_id, seen_version)
SELECT id, 2, CASE WHEN version < 5 THEN version ELSE 5 END FROM tallies WHERE id = 1
ON CONFLICT (tally_id, user_id) DO UPDATE SET seen_version = CASE
    WHEN excluded.seen_version > tally_views.seen_version THEN excluded.seen_version ELSE tally_views.seen_version END;
SELECT seen_version FROM tally_views;
UPDATE tallies SET next_reset_at = NULL, reset_time_zone = NULL,
    reset_schedule = CASE WHEN CAST(NULL AS BIGINT) IS NULL THEN 'off' ELSE reset_schedule END
WHERE id = 1;
SELECT reset_schedule, next_reset_at FROM tallies;
INSERT INTO tally_history (tally_id, at, user_id, kind, delta, value_after, version) VALUES (1, 15, 1, 'increment', 1, 4, 2), (1, 25, 1, 'increment', 2, 6, 3);
WITH periods(i, start, finish) AS (VALUES (CAST(0 AS BIGINT), CAST(10 AS BIGINT), CAST(20 AS BIGINT)), (CAST(1 AS BIGINT), CAST(20 AS BIGINT), CAST(30 AS BIGINT))),
counted AS (SELECT h.at, h.delta FROM tally_history h WHERE h.tally_id = 1)
SELECT periods.i, CAST(coalesce(sum(counted.delta), 0) AS BIGINT) AS total
FROM periods LEFT JOIN counted ON counted.at >= periods.start AND counted.at < periods.finish
GROUP BY periods.i ORDER BY periods.i;

-- Flashes: a flag compared, never used as a truth value itself.
SELECT count(*) FROM session_flashes WHERE session_id = 1 AND (1 = 1 OR shown_at IS NULL OR shown_at < 5);
INSERT INTO settings (key, value) VALUES ('k', 'v');
SELECT length(updated_at), substr(updated_at, 11, 1), substr(updated_at, 24, 1) FROM settings;
