-- Round records are checked as they arrive (the fourth outside attack, b07): one club's well-hashed
-- "round" record whose "date" is not a date, or whose "round" does not fit an integer, made
-- scorecard.scores fail for every club (the view casts them), so every club's pull stopped and no
-- club but the owner could delete the row. A record the view could not read is refused at the
-- insert instead, by the push's COPY as by a club's own psql, with a line that names the site, the
-- sequence number and the field. Checked without exception blocks (no subtransaction per row):
-- shots and other topics pass the trigger's WHEN clause untouched.

CREATE OR REPLACE FUNCTION scorecard.check_round_record() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    day text := NEW.body->>'date';
    y int; m int; d int;
    player jsonb;
BEGIN
    IF jsonb_typeof(NEW.body->'round') IS DISTINCT FROM 'number' OR (NEW.body->>'round') !~ '^[1-9][0-9]{0,8}$' THEN
        RAISE EXCEPTION 'scorecard record % of site %: "round" must be a whole number from 1 to 999999999, not %',
            NEW.seq, NEW.site_id, coalesce(NEW.body->>'round', 'nothing') USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.topic = 'round.deleted' AND day IS NULL THEN RETURN NEW; END IF;
    IF day IS NULL OR day !~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' THEN
        RAISE EXCEPTION 'scorecard record % of site %: "date" must be YYYY-MM-DD, not %', NEW.seq, NEW.site_id,
            coalesce(day, 'nothing') USING ERRCODE = 'check_violation';
    END IF;
    y := substr(day, 1, 4)::int; m := substr(day, 6, 2)::int; d := substr(day, 9, 2)::int;
    IF y < 1900 OR m NOT BETWEEN 1 AND 12 OR d < 1
       OR d > extract(day FROM make_date(y, m, 1) + interval '1 month - 1 day') THEN
        RAISE EXCEPTION 'scorecard record % of site %: "date" % is not a day of the calendar from 1900 on', NEW.seq, NEW.site_id, day
            USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.topic = 'round' THEN
        IF jsonb_typeof(NEW.body->'players') IS DISTINCT FROM 'array' THEN
            RAISE EXCEPTION 'scorecard record % of site %: "players" must be an array', NEW.seq, NEW.site_id USING ERRCODE = 'check_violation';
        END IF;
        FOR player IN SELECT * FROM jsonb_array_elements(NEW.body->'players') LOOP
            IF jsonb_typeof(player->'differential') = 'number'
               AND (player->>'differential')::numeric NOT BETWEEN -100 AND 200 THEN
                RAISE EXCEPTION 'scorecard record % of site %: a differential of % is not a golf score''s (from -100 to 200)',
                    NEW.seq, NEW.site_id, player->>'differential' USING ERRCODE = 'check_violation';
            END IF;
        END LOOP;
    END IF;
    RETURN NEW;
END $$;

DROP TRIGGER IF EXISTS scorecard_round_checked ON clubhouse.records;
CREATE TRIGGER scorecard_round_checked BEFORE INSERT ON clubhouse.records
    FOR EACH ROW WHEN (NEW.plugin = 'org.clubhouse.scorecard' AND NEW.topic IN ('round', 'round.deleted'))
    EXECUTE FUNCTION scorecard.check_round_record();
