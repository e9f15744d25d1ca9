-- The scorecard's central SQL, second migration: the Handicap Index of record as the plugin's own scoring
-- record computes it (ScoringRecordEngine in Sources/ScorecardCore/Handicap/ScoringRecord.swift), not
-- only Rule 5.2 over the 20 most recent scores:
--
--   - scores are taken in the order played (date, then club, then round) and grouped by day; the index
--     in force for a day's scores is the one issued after the previous day with scores;
--   - Rule 5.9 (exceptional score): a differential 7.0–9.9 below the index in force reduces itself and
--     the 19 before it by 1.0, 10.0 or more by 2.0 (reductions add up);
--   - Rule 5.2 after each day: the lowest of the most recent 20 (after reductions), the table's count
--     and adjustment, rounded once half up to a tenth;
--   - Rule 5.7/5.8 once 20 differentials exist: the Low Handicap Index is the lowest index in force
--     during the 365 days before the day of the latest score; above it + 3.0 half the excess is removed
--     (soft cap, rounded half up), never more than + 5.0 (hard cap);
--   - Rule 5.3: at most 54.0.
--
-- The central record knows each round's published differential, rounded to a tenth; the plugin measures
-- Rule 5.9 on the unrounded one, so the two can differ only for a score within 0.05 of the 7.0 or 10.0
-- margin. A player's first scores count from the first one published (an index the player was given at
-- a club is not known centrally). Checked against the plugin's Swift engine on the same rounds
-- (FederationEndToEndTests.testTheCentralIndexAppliesCapsAndExceptionalScoresAsThePluginDoes).
--
-- All in tenths (integers): scorecard.whs_index(days, tenths) evaluates one member's record.

CREATE OR REPLACE FUNCTION scorecard.whs_index(days date[], tenths int[],
    OUT handicap_index int, OUT scores int, OUT counted int, OUT low_index int, OUT soft_cap boolean,
    OUT hard_cap boolean, OUT exceptional int)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  n int := coalesce(cardinality(tenths), 0);
  adjusted int[] := tenths;  -- after the exceptional score reductions
  rev_from int[] := '{}';   -- revision i is in force from day number rev_from[i]
  rev_index int[] := '{}';
  i int := 1; j int; k int; cnt int := 0; day date; in_force int; r int; margin int;
  used int; adjustment int; total int; calculated int; idx int; low int; excess int; soft int;
BEGIN
  exceptional := 0;
  WHILE i <= n LOOP
    day := days[i];
    in_force := CASE WHEN cardinality(rev_index) > 0 THEN rev_index[cardinality(rev_index)] END;
    WHILE i <= n AND days[i] = day LOOP
      cnt := i;
      IF in_force IS NOT NULL THEN
        margin := in_force - tenths[i];
        r := CASE WHEN margin >= 100 THEN 20 WHEN margin >= 70 THEN 10 ELSE 0 END;
        IF r > 0 THEN
          exceptional := exceptional + 1;
          FOR k IN greatest(1, i - 19)..i LOOP adjusted[k] := adjusted[k] - r; END LOOP;
        END IF;
      END IF;
      i := i + 1;
    END LOOP;
    CONTINUE WHEN cnt < 3;
    j := least(cnt, 20);
    used := CASE WHEN j <= 5 THEN 1 WHEN j <= 8 THEN 2 WHEN j <= 11 THEN 3 WHEN j <= 14 THEN 4
                 WHEN j <= 16 THEN 5 WHEN j <= 18 THEN 6 WHEN j = 19 THEN 7 ELSE 8 END;
    adjustment := CASE j WHEN 3 THEN -20 WHEN 4 THEN -10 WHEN 6 THEN -10 ELSE 0 END;
    SELECT sum(v) INTO total FROM (SELECT v FROM unnest(adjusted[cnt - j + 1:cnt]) v ORDER BY 1 LIMIT used) lowest;
    total := total + used * adjustment;
    calculated := floor((2 * total + used)::numeric / (2 * used))::int;   -- half up, also below zero
    idx := calculated;
    low := NULL; soft_cap := false; hard_cap := false;
    IF cnt >= 20 THEN
      -- Rule 5.7: revisions in force at some time in [day − 365, day − 1].
      FOR k IN 1..cardinality(rev_index) LOOP
        IF rev_from[k] <= (day - 1) - date '2000-01-01'
           AND (k = cardinality(rev_index) OR rev_from[k + 1] - 1 >= (day - 365) - date '2000-01-01') THEN
          low := least(coalesce(low, rev_index[k]), rev_index[k]);
        END IF;
      END LOOP;
      IF low IS NOT NULL THEN
        excess := calculated - low;
        IF excess > 30 THEN
          soft := floor((2 * low + 30 + excess + 1)::numeric / 2)::int;
          soft_cap := true;
          IF soft - low > 50 THEN idx := low + 50; hard_cap := true; ELSE idx := soft; END IF;
        END IF;
      END IF;
    END IF;
    idx := least(idx, 540);
    rev_from := rev_from || ((day + 1) - date '2000-01-01');
    rev_index := rev_index || idx;
    handicap_index := idx; scores := j; counted := used; low_index := low;
  END LOOP;
END $$;

-- The index of record, as before (member, handicap_index, scores, counted, clubs), with how it came
-- about appended: the Low Handicap Index the caps measured against, which cap acted, how many
-- exceptional scores the record holds.
CREATE OR REPLACE VIEW scorecard.index_of_record AS
WITH records AS (
    SELECT member,
           array_agg(played_on ORDER BY played_on, site_id, round) AS days,
           array_agg((round(differential * 10))::int ORDER BY played_on, site_id, round) AS tenths,
           array_agg(site_id ORDER BY played_on, site_id, round) AS sites
    FROM scorecard.scores GROUP BY member)
SELECT r.member, (w.handicap_index / 10.0)::numeric(4, 1) AS handicap_index, w.scores, w.counted,
       (SELECT string_agg(DISTINCT s, ',' ORDER BY s) FROM unnest(r.sites[greatest(1, cardinality(r.sites) - 19):]) s) AS clubs,
       (w.low_index / 10.0)::numeric(4, 1) AS low_index, w.soft_cap, w.hard_cap, w.exceptional AS exceptional_scores
FROM records r CROSS JOIN LATERAL scorecard.whs_index(r.days, r.tenths) w
WHERE w.handicap_index IS NOT NULL;

GRANT EXECUTE ON FUNCTION scorecard.whs_index(date[], int[]) TO PUBLIC;
GRANT SELECT ON scorecard.index_of_record TO PUBLIC;
