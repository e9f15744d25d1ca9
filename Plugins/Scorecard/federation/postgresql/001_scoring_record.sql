-- The scorecard's central SQL (applied by `clubhouse federation migrate`): the World Handicap System
-- scoring record across every club of the federation, and each member's Handicap Index of record
-- computed from it (Rules of Handicapping, Rule 5.2: the most recent 20 Score Differentials, the
-- lowest 8 of them — fewer scores use the table's count and adjustment — rounded once, half up to a
-- tenth, at most 54.0). Checked against the plugin's own Swift calculation (FederationEndToEndTests).
--
-- A round counts from the latest "round" record of its (site, round) that no "round.deleted" record
-- of the same key follows; a player counts when the club gave them a federation member id. "clubs" are
-- the sites whose rounds are in the member's 20 most recent scores.

CREATE SCHEMA IF NOT EXISTS scorecard;

CREATE OR REPLACE VIEW scorecard.scores AS
SELECT r.site_id, r.key, (r.body->>'round')::int AS round, (r.body->>'date')::date AS played_on, r.seq,
       p->>'member' AS member, (p->>'differential')::numeric AS differential, r.received_at
FROM clubhouse.records r
CROSS JOIN LATERAL jsonb_array_elements(r.body->'players') AS p
WHERE r.plugin = 'org.clubhouse.scorecard' AND r.topic = 'round'
  AND p->>'member' IS NOT NULL AND jsonb_typeof(p->'differential') = 'number'
  AND NOT EXISTS (SELECT 1 FROM clubhouse.records later
                  WHERE later.plugin = r.plugin AND later.site_id = r.site_id AND later.key = r.key AND later.seq > r.seq
                    AND later.topic IN ('round', 'round.deleted'));

CREATE OR REPLACE VIEW scorecard.index_of_record AS
WITH recent AS (
    SELECT member, differential, site_id,
           row_number() OVER (PARTITION BY member ORDER BY played_on DESC, received_at DESC, site_id, round DESC) AS recency
    FROM scorecard.scores),
counted AS (
    SELECT member, differential, site_id, count(*) OVER (PARTITION BY member) AS n,
           row_number() OVER (PARTITION BY member ORDER BY differential, recency) AS lowest
    FROM recent WHERE recency <= 20),
rule AS (
    SELECT DISTINCT member, n,
           CASE WHEN n <= 5 THEN 1 WHEN n <= 8 THEN 2 WHEN n <= 11 THEN 3 WHEN n <= 14 THEN 4
                WHEN n <= 16 THEN 5 WHEN n <= 18 THEN 6 WHEN n = 19 THEN 7 ELSE 8 END AS used,
           CASE n WHEN 3 THEN -2.0 WHEN 4 THEN -1.0 WHEN 6 THEN -1.0 ELSE 0.0 END AS adjustment
    FROM counted WHERE n >= 3)
SELECT rule.member,
       least(54.0, floor((sum(c.differential) / rule.used + rule.adjustment) * 10 + 0.5) / 10)::numeric(4, 1) AS handicap_index,
       rule.n::int AS scores, rule.used AS counted,
       (SELECT string_agg(DISTINCT a.site_id, ',' ORDER BY a.site_id) FROM counted a WHERE a.member = rule.member) AS clubs
FROM rule JOIN counted c ON c.member = rule.member AND c.lowest <= rule.used
GROUP BY rule.member, rule.n, rule.used, rule.adjustment;

GRANT USAGE ON SCHEMA scorecard TO PUBLIC;
GRANT SELECT ON scorecard.scores, scorecard.index_of_record TO PUBLIC;
