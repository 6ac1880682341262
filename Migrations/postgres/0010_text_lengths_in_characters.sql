-- PostgreSQL twin of ../0010_text_lengths_in_characters.sql: the same wider
-- limits (12 code points per Character of each form's limit). PostgreSQL
-- alters a CHECK in place; the constraint names are PostgreSQL's defaults
-- for the column CHECKs of 0002, 0006, 0007 and 0008.
ALTER TABLE users
    DROP CONSTRAINT users_display_name_check,
    ADD CONSTRAINT users_display_name_check CHECK (length(display_name) BETWEEN 1 AND 720);
ALTER TABLE occasion_members
    DROP CONSTRAINT occasion_members_display_name_check,
    ADD CONSTRAINT occasion_members_display_name_check CHECK (length(display_name) BETWEEN 1 AND 720);
ALTER TABLE occasions
    DROP CONSTRAINT occasions_name_check,
    ADD CONSTRAINT occasions_name_check CHECK (length(name) BETWEEN 1 AND 960),
    DROP CONSTRAINT occasions_celebrant_name_check,
    ADD CONSTRAINT occasions_celebrant_name_check CHECK (length(celebrant_name) BETWEEN 1 AND 720);
ALTER TABLE occasion_challenges
    DROP CONSTRAINT occasion_challenges_title_check,
    ADD CONSTRAINT occasion_challenges_title_check CHECK (length(title) BETWEEN 1 AND 1440),
    DROP CONSTRAINT occasion_challenges_description_check,
    ADD CONSTRAINT occasion_challenges_description_check CHECK (length(description) <= 48000),
    DROP CONSTRAINT occasion_challenges_option_b_check,
    ADD CONSTRAINT occasion_challenges_option_b_check CHECK (option_b IS NULL OR length(option_b) BETWEEN 1 AND 1440),
    DROP CONSTRAINT occasion_challenges_proof_text_check,
    ADD CONSTRAINT occasion_challenges_proof_text_check CHECK (proof_text IS NULL OR length(proof_text) <= 24000);
ALTER TABLE occasion_gifts
    DROP CONSTRAINT occasion_gifts_body_check,
    ADD CONSTRAINT occasion_gifts_body_check CHECK (length(body) <= 240000);
ALTER TABLE occasion_adjustments
    DROP CONSTRAINT occasion_adjustments_reason_check,
    ADD CONSTRAINT occasion_adjustments_reason_check CHECK (length(reason) BETWEEN 1 AND 2400);
ALTER TABLE occasion_reports
    DROP CONSTRAINT occasion_reports_reason_check,
    ADD CONSTRAINT occasion_reports_reason_check CHECK (length(reason) <= 6000);
ALTER TABLE plate_games
    DROP CONSTRAINT plate_games_name_check,
    ADD CONSTRAINT plate_games_name_check CHECK (length(name) BETWEEN 1 AND 720);
ALTER TABLE tallies
    DROP CONSTRAINT tallies_name_check,
    ADD CONSTRAINT tallies_name_check CHECK (length(name) BETWEEN 1 AND 720);
