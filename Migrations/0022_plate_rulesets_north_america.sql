-- Plate games past the US: Canada's provinces and territories as regions,
-- rulesets that count them, and rarity scoring.
--
-- Region codes: US states keep their postal codes (every stored spot uses
-- them); Canada's regions take ISO 3166-2 codes ("CA-ON"), so no code can
-- collide across countries ("CA" stays California). plate_regions allowed
-- two-letter codes only, so it is rebuilt. It is a parent table: the rows
-- are put back after the new table has taken its name, so each child row
-- (spots, ruleset rows) finds its parent again before the deferred foreign
-- key checks run at the end of the file.
CREATE TABLE plate_regions_saved AS SELECT code, fips, name FROM plate_regions;

CREATE TABLE plate_regions_new (
    code     TEXT PRIMARY KEY NOT NULL CHECK (length(code) BETWEEN 2 AND 6),
    -- The Census Bureau's two-digit code; US regions only.
    fips     TEXT UNIQUE,
    name     TEXT NOT NULL UNIQUE,
    country  TEXT NOT NULL CHECK (country IN ('US', 'CA'))
) STRICT, WITHOUT ROWID;

DROP TABLE plate_regions;
ALTER TABLE plate_regions_new RENAME TO plate_regions;
INSERT INTO plate_regions (code, fips, name, country) SELECT code, fips, name, 'US' FROM plate_regions_saved;
DROP TABLE plate_regions_saved;

INSERT INTO plate_regions (code, fips, name, country) VALUES
    ('CA-AB', NULL, 'Alberta', 'CA'),
    ('CA-BC', NULL, 'British Columbia', 'CA'),
    ('CA-MB', NULL, 'Manitoba', 'CA'),
    ('CA-NB', NULL, 'New Brunswick', 'CA'),
    ('CA-NL', NULL, 'Newfoundland and Labrador', 'CA'),
    ('CA-NS', NULL, 'Nova Scotia', 'CA'),
    ('CA-NT', NULL, 'Northwest Territories', 'CA'),
    ('CA-NU', NULL, 'Nunavut', 'CA'),
    ('CA-ON', NULL, 'Ontario', 'CA'),
    ('CA-PE', NULL, 'Prince Edward Island', 'CA'),
    ('CA-QC', NULL, 'Québec', 'CA'),
    ('CA-SK', NULL, 'Saskatchewan', 'CA'),
    ('CA-YT', NULL, 'Yukon', 'CA');

-- Which countries a ruleset reaches, for the settings form and the map.
ALTER TABLE plate_rulesets ADD COLUMN countries TEXT NOT NULL DEFAULT 'US';

INSERT INTO plate_rulesets (name, label, countries) VALUES
    ('us50ca', 'The 50 states and Canada', 'US CA'),
    ('us50dcca', 'The 50 states, DC and Canada', 'US CA');

INSERT INTO plate_ruleset_regions (ruleset, region)
    SELECT 'us50ca', code FROM plate_regions WHERE code <> 'DC';
INSERT INTO plate_ruleset_regions (ruleset, region)
    SELECT 'us50dcca', code FROM plate_regions;

-- Rarity: what a region is worth when a game scores by rarity. A plate
-- seldom seen on the road is worth more: Hawaii's and Alaska's travel by
-- ship or a very long drive, DC's and the small Atlantic provinces' are few,
-- the territories' fewer still. Every other region is worth 1.
ALTER TABLE plate_ruleset_regions ADD COLUMN points INTEGER NOT NULL DEFAULT 1 CHECK (points BETWEEN 1 AND 9);

UPDATE plate_ruleset_regions SET points = CASE region
    WHEN 'HI' THEN 5
    WHEN 'AK' THEN 4
    WHEN 'DC' THEN 3
    WHEN 'CA-NU' THEN 5
    WHEN 'CA-NT' THEN 4
    WHEN 'CA-YT' THEN 4
    WHEN 'CA-PE' THEN 3
    WHEN 'CA-NL' THEN 3
    WHEN 'CA-NS' THEN 2
    WHEN 'CA-NB' THEN 2
    WHEN 'CA-SK' THEN 2
    WHEN 'CA-MB' THEN 2
    ELSE 1 END;

-- How a game scores: one point a region (the default), or the ruleset's points.
ALTER TABLE plate_games ADD COLUMN scoring TEXT NOT NULL DEFAULT 'count' CHECK (scoring IN ('count', 'rarity'));
