-- Occasions: a celebrant earns points by completing challenges and spends
-- them to unlock gifts their people made. Everything hangs off `occasions`
-- and goes with it.
--
-- Points are kept in `occasions.balance`, changed only in the transaction
-- that records why (a completion, an unlock, an adjustment), and a CHECK
-- makes a negative balance impossible rather than unlikely.

CREATE TABLE occasions (
    id              INTEGER PRIMARY KEY,
    name            TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 80),
    kind            TEXT NOT NULL CHECK (kind IN ('birthday', 'anniversary', 'graduation', 'farewell', 'bachelor')),
    celebrant_name  TEXT NOT NULL CHECK (length(celebrant_name) BETWEEN 1 AND 60),
    -- The day itself, as the host typed it: YYYY-MM-DD, no time zone.
    date            TEXT NOT NULL CHECK (date GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]'),
    is_open         INTEGER NOT NULL DEFAULT 1 CHECK (is_open IN (0, 1)),
    balance         INTEGER NOT NULL DEFAULT 0 CHECK (balance >= 0),
    -- What a contributor's dare may be worth; the host sets the bounds.
    dare_min_points INTEGER NOT NULL DEFAULT 5 CHECK (dare_min_points >= 1),
    dare_max_points INTEGER NOT NULL DEFAULT 50 CHECK (dare_max_points >= dare_min_points AND dare_max_points <= 1000),
    -- When the badge opened, by the rule or by the host; never closes again.
    finale_at       INTEGER,
    created_at      INTEGER NOT NULL
) STRICT;

-- One role per person per occasion. The host is also a contributor; there is
-- exactly one host and at most one celebrant, and the two are never the same
-- person because a person has one row.
CREATE TABLE occasion_members (
    occasion_id   INTEGER NOT NULL REFERENCES occasions(id) ON DELETE CASCADE,
    user_id       INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    role          TEXT NOT NULL CHECK (role IN ('host', 'contributor', 'celebrant')),
    -- The name the others see here (the host chooses theirs when creating).
    display_name  TEXT NOT NULL CHECK (length(display_name) BETWEEN 1 AND 60),
    joined_at     INTEGER NOT NULL,
    -- How they came in, for the host's eyes only: 'created', or the code.
    joined_via    TEXT NOT NULL,
    PRIMARY KEY (occasion_id, user_id)
) STRICT, WITHOUT ROWID;
CREATE UNIQUE INDEX occasion_one_host ON occasion_members(occasion_id) WHERE role = 'host';
CREATE UNIQUE INDEX occasion_one_celebrant ON occasion_members(occasion_id) WHERE role = 'celebrant';
CREATE INDEX occasion_members_by_user ON occasion_members(user_id);

-- Challenges the host writes, and the secret dares contributors write (one
-- each). A dare keeps its author; a challenge belongs to the occasion.
CREATE TABLE occasion_challenges (
    id               INTEGER PRIMARY KEY,
    occasion_id      INTEGER NOT NULL REFERENCES occasions(id) ON DELETE CASCADE,
    kind             TEXT NOT NULL CHECK (kind IN ('challenge', 'dare')),
    author_id        INTEGER REFERENCES users(id) ON DELETE CASCADE,
    title            TEXT NOT NULL CHECK (length(title) BETWEEN 1 AND 120),
    description      TEXT NOT NULL DEFAULT '' CHECK (length(description) <= 4000),
    -- A 2-in-1: the celebrant picks the title (A) or this (B).
    option_b         TEXT CHECK (option_b IS NULL OR length(option_b) BETWEEN 1 AND 120),
    points           INTEGER NOT NULL CHECK (points BETWEEN 1 AND 1000),
    difficulty       TEXT NOT NULL DEFAULT 'medium' CHECK (difficulty IN ('easy', 'medium', 'hard')),
    category         TEXT NOT NULL DEFAULT 'social' CHECK (category IN ('physical', 'social', 'creative', 'sentimental', 'adventure')),
    created_at       INTEGER NOT NULL,
    -- The celebrant opened the classified file and saw it.
    discovered_at    INTEGER,
    completed_at     INTEGER,
    chosen_option    TEXT CHECK (chosen_option IN ('a', 'b')),
    proof_kind       TEXT CHECK (proof_kind IN ('done', 'text', 'photo', 'host')),
    proof_text       TEXT CHECK (proof_text IS NULL OR length(proof_text) <= 2000),
    CHECK ((kind = 'dare') = (author_id IS NOT NULL)),
    CHECK ((completed_at IS NULL) = (proof_kind IS NULL))
) STRICT;
CREATE INDEX occasion_challenges_by_occasion ON occasion_challenges(occasion_id, kind);
CREATE UNIQUE INDEX occasion_one_dare_each ON occasion_challenges(occasion_id, author_id) WHERE kind = 'dare';
CREATE INDEX occasion_challenges_by_author ON occasion_challenges(author_id) WHERE author_id IS NOT NULL;

-- One gift per contributor: draft (only the author sees it) → submitted (the
-- host sees it, to price it) → on offer (the celebrant sees giver and kind)
-- → unlocked. Its content is the author's alone: once out of draft, no one
-- may change it, which the trigger below makes a database rule.
CREATE TABLE occasion_gifts (
    id            INTEGER PRIMARY KEY,
    occasion_id   INTEGER NOT NULL REFERENCES occasions(id) ON DELETE CASCADE,
    author_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind          TEXT NOT NULL DEFAULT 'letter' CHECK (kind IN ('letter', 'photos', 'video', 'voice')),
    body          TEXT NOT NULL DEFAULT '' CHECK (length(body) <= 20000),
    state         TEXT NOT NULL DEFAULT 'draft' CHECK (state IN ('draft', 'submitted', 'on_offer', 'unlocked')),
    cost          INTEGER CHECK (cost IS NULL OR cost BETWEEN 1 AND 100000),
    -- The host's order in the carousel; lower first.
    position      INTEGER NOT NULL DEFAULT 0,
    created_at    INTEGER NOT NULL,
    submitted_at  INTEGER,
    unlocked_at   INTEGER,
    CHECK (state IN ('draft', 'submitted') OR cost IS NOT NULL),
    CHECK ((state = 'unlocked') = (unlocked_at IS NOT NULL))
) STRICT;
CREATE UNIQUE INDEX occasion_one_gift_each ON occasion_gifts(occasion_id, author_id);
CREATE INDEX occasion_gifts_by_author ON occasion_gifts(author_id);

CREATE TRIGGER occasion_gift_content_is_the_authors
BEFORE UPDATE OF kind, body ON occasion_gifts
WHEN OLD.state <> 'draft' AND (NEW.kind IS NOT OLD.kind OR NEW.body IS NOT OLD.body)
BEGIN
    SELECT RAISE(ABORT, 'a gift''s content cannot change once it leaves draft');
END;

-- The living timeline: what happened, in order. Append-only: an entry is
-- never changed or removed while its occasion exists. It names what it is
-- about by id, without a foreign key: when the content goes (its author
-- deleted their account), the entry stays and shows that it was removed.
CREATE TABLE occasion_timeline (
    id            INTEGER PRIMARY KEY,
    occasion_id   INTEGER NOT NULL REFERENCES occasions(id) ON DELETE CASCADE,
    kind          TEXT NOT NULL CHECK (kind IN ('challenge', 'dare', 'gift', 'adjustment', 'finale')),
    subject_id    INTEGER,
    -- Signed change to the balance this entry made.
    points        INTEGER NOT NULL,
    -- Set by the host's hand: forced completions and unlocks, adjustments.
    by_host       INTEGER NOT NULL DEFAULT 0 CHECK (by_host IN (0, 1)),
    at            INTEGER NOT NULL
) STRICT;
CREATE INDEX occasion_timeline_by_occasion ON occasion_timeline(occasion_id, id);

CREATE TRIGGER occasion_timeline_no_update
BEFORE UPDATE ON occasion_timeline
BEGIN
    SELECT RAISE(ABORT, 'the timeline is append-only');
END;

-- A cascade from the occasion's own deletion runs after the occasion row is
-- gone, so it passes; any other delete is refused.
CREATE TRIGGER occasion_timeline_no_delete
BEFORE DELETE ON occasion_timeline
WHEN EXISTS (SELECT 1 FROM occasions WHERE id = OLD.occasion_id)
BEGIN
    SELECT RAISE(ABORT, 'the timeline is append-only');
END;

-- The host's point adjustments, with their reasons: the audit list.
CREATE TABLE occasion_adjustments (
    id            INTEGER PRIMARY KEY,
    occasion_id   INTEGER NOT NULL REFERENCES occasions(id) ON DELETE CASCADE,
    delta         INTEGER NOT NULL CHECK (delta <> 0 AND delta BETWEEN -100000 AND 100000),
    reason        TEXT NOT NULL CHECK (length(reason) BETWEEN 1 AND 200),
    -- Who made it; cleared when that account is deleted.
    actor_id      INTEGER REFERENCES users(id) ON DELETE SET NULL,
    at            INTEGER NOT NULL
) STRICT;
CREATE INDEX occasion_adjustments_by_occasion ON occasion_adjustments(occasion_id, id);
CREATE INDEX occasion_adjustments_by_actor ON occasion_adjustments(actor_id) WHERE actor_id IS NOT NULL;

-- Reports of a gift or a challenge, for the host only. Append-only like the
-- timeline; the reporter is cleared when their account goes (the one change
-- the update trigger lets through, since it names the other columns).
CREATE TABLE occasion_reports (
    id            INTEGER PRIMARY KEY,
    occasion_id   INTEGER NOT NULL REFERENCES occasions(id) ON DELETE CASCADE,
    subject_kind  TEXT NOT NULL CHECK (subject_kind IN ('gift', 'challenge')),
    subject_id    INTEGER NOT NULL,
    reason        TEXT NOT NULL DEFAULT '' CHECK (length(reason) <= 500),
    reporter_id   INTEGER REFERENCES users(id) ON DELETE SET NULL,
    at            INTEGER NOT NULL
) STRICT;
CREATE INDEX occasion_reports_by_occasion ON occasion_reports(occasion_id, id);
CREATE INDEX occasion_reports_by_reporter ON occasion_reports(reporter_id) WHERE reporter_id IS NOT NULL;

CREATE TRIGGER occasion_reports_no_update
BEFORE UPDATE OF id, occasion_id, subject_kind, subject_id, reason, at ON occasion_reports
BEGIN
    SELECT RAISE(ABORT, 'reports are append-only');
END;

CREATE TRIGGER occasion_reports_no_delete
BEFORE DELETE ON occasion_reports
WHEN EXISTS (SELECT 1 FROM occasions WHERE id = OLD.occasion_id)
BEGIN
    SELECT RAISE(ABORT, 'reports are append-only');
END;
