#!/bin/sh
# Seeds a data dir with a typical club for the store benchmark (issue 19): each plugin's demo data,
# made by the given clubhouse (use the OLDEST build being compared, so every build can open the
# files: a newer plugin migrates an older file, never the reverse), then copied in SQL to
#   scorecard: 200 players, 2,001 rounds (69 copies of the demo's 29; 4 of each copy still live),
#              66,654 score entries; each copy's players are another group of 4;
#   practice:  203 sessions (29 copies of the demo's 7) with their club sub-sessions and shots.
# Usage: Benchmarks/store/seed.sh CLUBHOUSE DATA_DIR   (needs sqlite3)
set -eu
ch=${1:?usage: seed.sh CLUBHOUSE DATA_DIR}
data=${2:?usage: seed.sh CLUBHOUSE DATA_DIR}
[ ! -e "$data" ] || { echo "seed.sh: $data exists; give a new folder"; exit 2; }
command -v sqlite3 >/dev/null || { echo "seed.sh: sqlite3 is needed (apt-get install sqlite3)"; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$ch" --data-dir "$data" -q scorecard demo --out "$out/scorecard" >/dev/null
"$ch" --data-dir "$data" -q practice demo --out "$out/practice" >/dev/null
sc="$data/default/org.clubhouse.scorecard.sqlite"
pr="$data/default/org.clubhouse.practice.sqlite"

sqlite3 "$sc" <<'SQL'
PRAGMA foreign_keys = ON;
BEGIN;
CREATE TEMP TABLE k AS SELECT max(id) AS r FROM rounds;
CREATE TEMP TABLE copies (j INTEGER PRIMARY KEY);
WITH RECURSIVE n(j) AS (SELECT 1 UNION ALL SELECT j + 1 FROM n WHERE j < 68) INSERT INTO copies SELECT j FROM n;
-- 196 more players: "Maren Holt 2" … in groups of four like the demo's.
WITH RECURSIVE n(i) AS (SELECT 5 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
INSERT INTO players (id, name)
SELECT i, (SELECT name FROM players WHERE id = (i - 1) % 4 + 1) || ' ' || ((i - 1) / 4 + 1) FROM n;
-- Copy j of the season: round ids j*R + id, players moved to group j % 50; finished at the end
-- (the triggers refuse entries in a finished round).
INSERT INTO rounds (id, course_id, tee_name, played_on, nine, format, pcc_tenths, finished_on)
SELECT c.j * k.r + o.id, o.course_id, o.tee_name, o.played_on, o.nine, o.format, o.pcc_tenths, NULL
FROM rounds o, copies c, k WHERE o.id <= k.r ORDER BY c.j, o.id;
INSERT INTO round_options (round_id, allowance_percent, net_skins, carry_overs)
SELECT c.j * k.r + o.round_id, o.allowance_percent, o.net_skins, o.carry_overs
FROM round_options o, copies c, k WHERE o.round_id <= k.r ORDER BY c.j, o.round_id;
INSERT INTO round_players (round_id, player_id, position, index_tenths, course_handicap, playing_handicap)
SELECT c.j * k.r + o.round_id, o.player_id + 4 * (c.j % 50), o.position, o.index_tenths, o.course_handicap, o.playing_handicap
FROM round_players o, copies c, k WHERE o.round_id <= k.r ORDER BY c.j, o.round_id, o.position;
INSERT INTO score_entries (round_id, player_id, hole, strokes, reason, corrected_on)
SELECT c.j * k.r + o.round_id, o.player_id + 4 * (c.j % 50), o.hole, o.strokes, o.reason, o.corrected_on
FROM score_entries o, copies c, k WHERE o.round_id <= k.r ORDER BY c.j, o.sequence;
UPDATE rounds SET finished_on = (SELECT o.finished_on FROM rounds o WHERE o.id = (rounds.id - 1) % (SELECT r FROM k) + 1)
WHERE id > (SELECT r FROM k);
COMMIT;
SQL

shotcols=$(sqlite3 "$pr" "SELECT group_concat(name, ', ') FROM pragma_table_info('shots') WHERE name NOT IN ('id', 'session_id')")
sqlite3 "$pr" <<SQL
BEGIN;
CREATE TEMP TABLE k AS SELECT max(id) AS s FROM sessions;
CREATE TEMP TABLE copies (j INTEGER PRIMARY KEY);
WITH RECURSIVE n(j) AS (SELECT 1 UNION ALL SELECT j + 1 FROM n WHERE j < 28) INSERT INTO copies SELECT j FROM n;
INSERT INTO sessions (id, content_hash, source_name, imported_at, session_date, location, title, shot_count, source_columns)
SELECT c.j * k.s + o.id, substr(o.content_hash, 1, 60) || printf('%04d', c.j), o.source_name, o.imported_at,
       o.session_date, o.location, o.title || ' (' || c.j || ')', o.shot_count, o.source_columns
FROM sessions o, copies c, k WHERE o.id <= k.s ORDER BY c.j, o.id;
INSERT INTO club_subsessions (session_id, club, template_hash, shot_count, a_count, b_count, c_count, validity, a_percent, averages_json)
SELECT c.j * k.s + o.session_id, o.club, o.template_hash, o.shot_count, o.a_count, o.b_count, o.c_count, o.validity, o.a_percent, o.averages_json
FROM club_subsessions o, copies c, k WHERE o.session_id <= k.s ORDER BY c.j, o.id;
INSERT INTO shots (session_id, $shotcols)
SELECT c.j * k.s + o.session_id, $(echo "$shotcols" | sed 's/[a-z_0-9][a-z_0-9]*/o.&/g')
FROM shots o, copies c, k WHERE o.session_id <= k.s ORDER BY c.j, o.id;
COMMIT;
SQL
echo "seeded $data:"
sqlite3 "$sc" "SELECT '  scorecard: ' || (SELECT count(*) FROM players) || ' players, ' || (SELECT count(*) FROM rounds) || ' rounds (' || (SELECT count(*) FROM rounds WHERE finished_on IS NULL) || ' live), ' || (SELECT count(*) FROM round_players) || ' round players, ' || (SELECT count(*) FROM score_entries) || ' score entries'"
sqlite3 "$pr" "SELECT '  practice: ' || (SELECT count(*) FROM sessions) || ' sessions, ' || (SELECT count(*) FROM club_subsessions) || ' club sub-sessions, ' || (SELECT count(*) FROM shots) || ' shots'"
