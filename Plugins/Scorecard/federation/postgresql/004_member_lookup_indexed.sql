-- The scorecard's central SQL, fourth migration: one member's Handicap Index without reading every round.
-- The association simulation (BENCHMARKS.md) found `index_of_record WHERE member = …` as dear as every
-- member's index at once: the member id is inside the jsonb body (a round's "players" array), so nothing
-- indexed it and every round of the federation was expanded to find one golfer's.
--
-- Which: an expression index, GIN (jsonb_path_ops) on the round's `body->'players'`, partial (round
-- records), on the scorecard's own partition of clubhouse.records (and so on each of its leaves, those
-- made later included). Why not a generated column: a column is added to clubhouse.records as a whole —
-- the host's table, every plugin's partitions — rewriting every record under an exclusive lock and
-- storing bytes in every row of every plugin, for one plugin's lookups; and a round has several players,
-- so a scalar column (or a b-tree) could not hold "the" member anyway. The GIN index holds every member
-- of every round, costs only the scorecard's inserts, and leaves the push's COPY untouched.
--
-- The b-tree on (site_id, key, seq) serves the lookup's "latest record of this round" test (no later
-- "round" or "round.deleted" of the same key), one probe per round of the member.
--
-- The view cannot pass a member on to the index (its member comes out of jsonb_array_elements), so the
-- lookup is a function: scorecard.index_of(member) gives the row index_of_record gives for that member,
-- reading only that member's rounds (FederationEndToEndTests shows its plan uses the index and that its
-- row is the view's).

DO $$
DECLARE part text := (SELECT relation FROM clubhouse.partitions WHERE plugin = 'org.clubhouse.scorecard');
BEGIN
  EXECUTE format('CREATE INDEX IF NOT EXISTS scorecard_round_members ON clubhouse.%I USING gin ((body->''players'') jsonb_path_ops) WHERE topic = ''round''', part);
  EXECUTE format('CREATE INDEX IF NOT EXISTS scorecard_round_latest ON clubhouse.%I (site_id, key, seq)', part);
END $$;

CREATE OR REPLACE FUNCTION scorecard.index_of(wanted text) RETURNS SETOF scorecard.index_of_record
LANGUAGE sql STABLE PARALLEL SAFE AS $$
WITH scores AS (
    SELECT r.site_id, (r.body->>'round')::int AS round, (r.body->>'date')::date AS played_on,
           (p->>'differential')::numeric AS differential
    FROM clubhouse.records r
    CROSS JOIN LATERAL jsonb_array_elements(r.body->'players') AS p
    WHERE r.plugin = 'org.clubhouse.scorecard' AND r.topic = 'round'
      AND r.body->'players' @> jsonb_build_array(jsonb_build_object('member', wanted))
      AND p->>'member' = wanted AND jsonb_typeof(p->'differential') = 'number'
      -- The latest "round" or "round.deleted" record of the round is this one: asked per round (a subplan on
      -- the b-tree below), where the view's NOT EXISTS may be planned as a hash anti-join over every record.
      AND r.seq = (SELECT max(later.seq) FROM clubhouse.records later
                   WHERE later.plugin = 'org.clubhouse.scorecard' AND later.site_id = r.site_id AND later.key = r.key
                     AND later.topic IN ('round', 'round.deleted'))),
records AS (
    SELECT wanted AS member,
           array_agg(played_on ORDER BY played_on, site_id, round) AS days,
           array_agg((round(differential * 10))::int ORDER BY played_on, site_id, round) AS tenths,
           array_agg(site_id ORDER BY played_on, site_id, round) AS sites
    FROM scores HAVING count(*) > 0)
SELECT r.member, (w.handicap_index / 10.0)::numeric(4, 1) AS handicap_index, w.scores, w.counted,
       (SELECT string_agg(DISTINCT s, ',' ORDER BY s) FROM unnest(r.sites[greatest(1, cardinality(r.sites) - 19):]) s) AS clubs,
       (w.low_index / 10.0)::numeric(4, 1) AS low_index, w.soft_cap, w.hard_cap, w.exceptional AS exceptional_scores
FROM records r CROSS JOIN LATERAL scorecard.whs_index(r.days, r.tenths) w
WHERE w.handicap_index IS NOT NULL
$$;

GRANT EXECUTE ON FUNCTION scorecard.index_of(text) TO PUBLIC;
