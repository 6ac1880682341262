-- PostgreSQL twin of ../0023_plate_rulesets_mexico.sql. As in 0022, the
-- CHECK that SQLite widens by rebuilding plate_regions is altered in place.
-- PostgreSQL 15 wants a name on every subquery in FROM; SQLite allows none.
ALTER TABLE plate_regions
    DROP CONSTRAINT plate_regions_country_check,
    ADD CONSTRAINT plate_regions_country_check CHECK (country IN ('US', 'CA', 'MX'));

-- "México" alone would read as the country; the state's own name is Estado
-- de México.
INSERT INTO plate_regions (code, fips, name, country) VALUES
    ('MX-AGU', NULL, 'Aguascalientes', 'MX'),
    ('MX-BCN', NULL, 'Baja California', 'MX'),
    ('MX-BCS', NULL, 'Baja California Sur', 'MX'),
    ('MX-CAM', NULL, 'Campeche', 'MX'),
    ('MX-CHH', NULL, 'Chihuahua', 'MX'),
    ('MX-CHP', NULL, 'Chiapas', 'MX'),
    ('MX-CMX', NULL, 'Ciudad de México', 'MX'),
    ('MX-COA', NULL, 'Coahuila', 'MX'),
    ('MX-COL', NULL, 'Colima', 'MX'),
    ('MX-DUR', NULL, 'Durango', 'MX'),
    ('MX-GRO', NULL, 'Guerrero', 'MX'),
    ('MX-GUA', NULL, 'Guanajuato', 'MX'),
    ('MX-HID', NULL, 'Hidalgo', 'MX'),
    ('MX-JAL', NULL, 'Jalisco', 'MX'),
    ('MX-MEX', NULL, 'Estado de México', 'MX'),
    ('MX-MIC', NULL, 'Michoacán', 'MX'),
    ('MX-MOR', NULL, 'Morelos', 'MX'),
    ('MX-NAY', NULL, 'Nayarit', 'MX'),
    ('MX-NLE', NULL, 'Nuevo León', 'MX'),
    ('MX-OAX', NULL, 'Oaxaca', 'MX'),
    ('MX-PUE', NULL, 'Puebla', 'MX'),
    ('MX-QUE', NULL, 'Querétaro', 'MX'),
    ('MX-ROO', NULL, 'Quintana Roo', 'MX'),
    ('MX-SIN', NULL, 'Sinaloa', 'MX'),
    ('MX-SLP', NULL, 'San Luis Potosí', 'MX'),
    ('MX-SON', NULL, 'Sonora', 'MX'),
    ('MX-TAB', NULL, 'Tabasco', 'MX'),
    ('MX-TAM', NULL, 'Tamaulipas', 'MX'),
    ('MX-TLA', NULL, 'Tlaxcala', 'MX'),
    ('MX-VER', NULL, 'Veracruz', 'MX'),
    ('MX-YUC', NULL, 'Yucatán', 'MX'),
    ('MX-ZAC', NULL, 'Zacatecas', 'MX');

INSERT INTO plate_rulesets (name, label, countries) VALUES
    ('us50camx', 'The 50 states, Canada and Mexico', 'US CA MX'),
    ('us50dccamx', 'The 50 states, DC, Canada and Mexico', 'US CA MX');

-- Rarity, as in 0022: the US and Canada keep their points. Most Mexican
-- plates north of the border come from the six border states (1 point);
-- the farther from the border a state is, the rarer its plates (the
-- south-east and Baja California Sur, at the end of a peninsula, most).
INSERT INTO plate_ruleset_regions (ruleset, region, points)
    SELECT 'us50camx', region, points FROM plate_ruleset_regions WHERE ruleset = 'us50ca';
INSERT INTO plate_ruleset_regions (ruleset, region, points)
    SELECT 'us50dccamx', region, points FROM plate_ruleset_regions WHERE ruleset = 'us50dcca';
INSERT INTO plate_ruleset_regions (ruleset, region, points)
    SELECT ruleset, code, CASE code
        WHEN 'MX-BCN' THEN 1 WHEN 'MX-SON' THEN 1 WHEN 'MX-CHH' THEN 1
        WHEN 'MX-COA' THEN 1 WHEN 'MX-NLE' THEN 1 WHEN 'MX-TAM' THEN 1
        WHEN 'MX-BCS' THEN 4 WHEN 'MX-YUC' THEN 4 WHEN 'MX-ROO' THEN 4
        WHEN 'MX-CAM' THEN 4 WHEN 'MX-TAB' THEN 4 WHEN 'MX-CHP' THEN 4
        WHEN 'MX-OAX' THEN 3 WHEN 'MX-GRO' THEN 3 WHEN 'MX-COL' THEN 3
        WHEN 'MX-MIC' THEN 3 WHEN 'MX-VER' THEN 3 WHEN 'MX-NAY' THEN 3
        ELSE 2 END
    FROM plate_regions CROSS JOIN (SELECT 'us50camx' AS ruleset UNION ALL SELECT 'us50dccamx') AS mexican_rulesets
    WHERE country = 'MX';
