-- PostgreSQL twin of ../0022_plate_rulesets_north_america.sql. SQLite
-- rebuilds plate_regions to loosen it; PostgreSQL alters it in place, and the
-- rows and every foreign key to them stay where they are. The new column's
-- default only fills the US rows already there: SQLite's rebuilt table has
-- none, so it goes again.
ALTER TABLE plate_regions
    DROP CONSTRAINT plate_regions_code_check,
    ADD CONSTRAINT plate_regions_code_check CHECK (length(code) BETWEEN 2 AND 6),
    ALTER COLUMN fips DROP NOT NULL,
    ADD COLUMN country TEXT NOT NULL DEFAULT 'US' CHECK (country IN ('US', 'CA'));
ALTER TABLE plate_regions ALTER COLUMN country DROP DEFAULT;

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
ALTER TABLE plate_ruleset_regions ADD COLUMN points BIGINT NOT NULL DEFAULT 1 CHECK (points BETWEEN 1 AND 9);

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
