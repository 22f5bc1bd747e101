-- Migration 3: the functions of a host's work, `queens_commit` in named steps. In parts:
-- small helpers: an entry's words, classes, totals (this file); a host's leases and solver
-- ids (hosts.sql); the steps of a block's merge (merge.sql); the commit (commit.sql);
-- withdrawals and quarantines (withdraw.sql).
--
-- They run with the tables' owner's rights (SECURITY DEFINER, search path fixed to the
-- campaign's schema): a host role may call those of a host's work and read the tables,
-- nothing else. Each one acts as the role that logged in (session_user), which a client
-- cannot choose. @schema@ is the campaign's schema.

-- What builds before numbered migrations left: whole-block rebuilds (replaced by
-- queens_patch), queens_zero without a holder to keep, and the fingerprint of their
-- functions' text that told them to install theirs again.
DROP FUNCTION IF EXISTS queens_rebuild(bytea, bigint[]);
DROP FUNCTION IF EXISTS queens_rebuild_cycles(bytea, bytea[]);
DROP FUNCTION IF EXISTS queens_zero(integer, integer[]);
DELETE FROM queens_meta WHERE key = 'functions';

-- Word k (0: pre-placement, 1: solution) of the entry at `off` of a block's entries.
-- (These small helpers have no SET clause, so that the planner inlines them; they name only
-- built-in functions, which pg_catalog, searched first, provides.)
CREATE OR REPLACE FUNCTION queens_word(e bytea, off integer, k integer) RETURNS bigint
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT ('x' || encode(substring(e FROM off * 16 + k * 8 + 1 FOR 8), 'hex'))::bit(64)::bigint
$$;

-- The solver id of a word 2: its top 12 bits (0 while the entry is unsolved).
CREATE OR REPLACE FUNCTION queens_solver_of(w bigint) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT ((w >> 52) & 4095)::integer
$$;

-- The whole count of a word 2: its 44 bits plus the wraps its digits mod 13 and mod 15 reveal
-- (2^44 = 61 mod 195, 61 * 16 = 1 mod 195); the 44 bits alone when the digits are out of range,
-- as the host reads an entry.
CREATE OR REPLACE FUNCTION queens_whole(w bigint) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN ((w >> 48) & 15) > 12 OR ((w >> 44) & 15) > 14 THEN w & 17592186044415
           ELSE (w & 17592186044415)
                + ((((((w >> 48) & 15) * 105 + ((w >> 44) & 15) * 91) % 195
                     - (w & 17592186044415) % 195 + 195) % 195 * 16) % 195) * 17592186044416
           END
$$;

-- The slot (1: none, 2: point, 3: rotate) of the class in a word 1; NULL for no class.
CREATE OR REPLACE FUNCTION queens_slot(w1 bigint) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN ((w1 >> 23) & 3) = 0 THEN NULL ELSE 4 - ((w1 >> 23) & 3)::integer END
$$;

-- Two per-class figures (by slot: none, point, rotate) added up.
CREATE OR REPLACE FUNCTION queens_plus(a bigint[], b bigint[]) RETURNS bigint[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT ARRAY[a[1] + b[1], a[2] + b[2], a[3] + b[3]]
$$;

-- `e` with the bytes at `offs[j] * size + at` replaced by `vals[j]` (`offs` ascending, each
-- once): one piece per replacement, so its cost grows with the replacements, not with `e`
-- (pass `e` decompressed, or each slice decompresses it again).
CREATE OR REPLACE FUNCTION queens_patch(e bytea, size integer, at integer, offs integer[], vals bytea[])
RETURNS bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = @schema@, pg_temp AS $$
    SELECT coalesce(string_agg(substring(e FROM p.prev + 1 FOR p.start - p.prev) || p.v, ''::bytea
                               ORDER BY p.start), ''::bytea)
           || substring(e FROM coalesce(max(p.start + length(p.v)), 0) + 1)
    FROM (SELECT t.o * size + at AS start, t.v,
                 coalesce(lag(t.o * size + at + length(t.v)) OVER (ORDER BY t.o), 0) AS prev
          FROM unnest(offs, vals) AS t(o, v)) p
$$;

-- Seconds a lease may last: at least one, at most a day (a host cannot hoard blocks).
CREATE OR REPLACE FUNCTION queens_ttl(secs float8) RETURNS interval
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = @schema@, pg_temp AS $$
    SELECT make_interval(secs => least(greatest(coalesce(secs, 1), 1), 86400))
$$;

-- Adds per-class changes (solved entries, summed counts) to the campaign's totals.
CREATE OR REPLACE FUNCTION queens_add_totals(p_n integer, p_solved bigint[], p_sums bigint[])
RETURNS void
LANGUAGE sql
SET search_path = @schema@, pg_temp AS $$
    UPDATE queens_campaign c
    SET solved = queens_plus(c.solved, p_solved), solutions = queens_plus(c.solutions, p_sums)
    WHERE c.n = p_n
$$;
