-- Migration 3, the commit (see basics.sql): queens_commit, its steps before and after the
-- blocks' merge (merge.sql).

-- The start of a commit by this role: refuses a campaign that does not exist and a role
-- quarantined in it, and records the role as heard now. The role's row stays locked to the
-- end: a quarantine (which updates it) waits for this commit and then withdraws what it
-- landed, or this commit sees the quarantine. Returns the role's first block with a count of
-- its own (NULL before the first): every count of it is checked by another role.
CREATE OR REPLACE FUNCTION queens_commit_enter(p_n integer) RETURNS integer
LANGUAGE plpgsql
SET search_path = @schema@, pg_temp AS $$
DECLARE
    role_first_block integer;
    is_quarantined boolean;
    quarantine_reason text;
BEGIN
    PERFORM queens_admit(p_n);
    INSERT INTO queens_host AS h (n, role) VALUES (p_n, session_user)
    ON CONFLICT (n, role) DO UPDATE SET seen = now()
    RETURNING h.first_block, h.quarantined IS NOT NULL, h.reason
    INTO role_first_block, is_quarantined, quarantine_reason;
    IF is_quarantined THEN
        RAISE EXCEPTION 'role % is quarantined in the campaign of N = %, every count it gave withdrawn: %',
            session_user, p_n, quarantine_reason USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN role_first_block;
END
$$;

-- Refuses a commit's results (`r_entry`, `r_word`, `r_cycles`) and corrections (`c_entry`,
-- `c_word`) unless there are as many words as entries and each names an entry of the
-- campaign and a count of a solver id of this role (a result: a count, not 0, with a cycle
-- count of 8 bytes or none; a correction: a count, or 0 to withdraw one). One pass over them
-- finds any fault; a second names it.
CREATE OR REPLACE FUNCTION queens_commit_check(
    p_n integer, r_entry bigint[], r_word bigint[], r_cycles bytea[], c_entry bigint[], c_word bigint[])
RETURNS void
LANGUAGE plpgsql
SET search_path = @schema@, pg_temp AS $$
DECLARE
    total bigint;     -- the campaign's entries
    mine integer[];   -- this role's solver ids
BEGIN
    IF cardinality(r_entry) <> cardinality(r_word) OR cardinality(r_cycles) <> cardinality(r_entry)
       OR cardinality(c_entry) <> cardinality(c_word) THEN
        RAISE EXCEPTION 'results and corrections need as many words as entries'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT c.subproblems INTO total FROM queens_campaign c WHERE c.n = p_n;
    mine := ARRAY(SELECT s.id FROM queens_solver s WHERE s.n = p_n AND s.role = session_user);
    IF NOT EXISTS (SELECT 1 FROM unnest(r_entry, r_word, r_cycles) AS u(e, w, c)
                   WHERE e IS NULL OR e < 0 OR e >= total OR w IS NULL OR w = 0
                      OR (c IS NOT NULL AND length(c) <> 8)
                      OR NOT queens_solver_of(w) = ANY (mine))
       AND NOT EXISTS (SELECT 1 FROM unnest(c_entry, c_word) AS u(e, w)
                       WHERE e IS NULL OR e < 0 OR e >= total OR w IS NULL
                          OR (w <> 0 AND NOT queens_solver_of(w) = ANY (mine))) THEN
        RETURN;
    END IF;
    IF EXISTS (SELECT 1 FROM unnest(r_entry || c_entry) e WHERE e IS NULL OR e < 0 OR e >= total) THEN
        RAISE EXCEPTION 'an entry outside the campaign of N = % (% entries)', p_n, total
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF EXISTS (SELECT 1 FROM unnest(r_word) w WHERE w IS NULL OR w = 0)
       OR EXISTS (SELECT 1 FROM unnest(r_cycles) c WHERE c IS NOT NULL AND length(c) <> 8) THEN
        RAISE EXCEPTION 'a result without a count, or with a cycle count that is not 8 bytes'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RAISE EXCEPTION 'a count names a solver id that is not one of role %''s', session_user
        USING ERRCODE = 'insufficient_privilege';
END
$$;

-- The blocks a commit touches, in order: how many of its results each has, and where they
-- are (from `o_lo` to `o_hi` of the results when they are together, as a host sends them,
-- sorted by entry, and `p_sliceable`: only that slice is read for the block, so that a
-- commit's cost does not grow with its results times its blocks; else all of them,
-- filtered), whether it has corrections, and whether it is to be locked: only where something
-- may change (results that may land: unsolved entries, in a block this role leases or no one
-- holds; or corrections). The others are only compared with (other roles' counts recomputed,
-- repeats): read as they stand, without waiting for the commits that hold them. Locked in
-- block order, two hosts committing at once never deadlock.
CREATE OR REPLACE FUNCTION queens_commit_blocks(
    p_n integer, p_who text, p_leases bigint[], r_entry bigint[], c_entry bigint[], p_sliceable boolean)
RETURNS TABLE (o_block integer, o_first bigint, o_len integer, o_results bigint, o_lo bigint,
               o_hi bigint, o_corrected boolean, o_locks boolean)
LANGUAGE sql
SET search_path = @schema@, pg_temp AS $$
    WITH campaign AS (SELECT c.block_size FROM queens_campaign c WHERE c.n = p_n)
    SELECT k.block, k.first, k.len, coalesce(rs.cnt, 0),
           CASE WHEN p_sliceable AND rs.hi - rs.lo + 1 = rs.cnt THEN rs.lo ELSE 1 END,
           CASE WHEN p_sliceable AND rs.hi - rs.lo + 1 = rs.cnt THEN rs.hi ELSE cardinality(r_entry) END,
           cs.blk IS NOT NULL,
           cs.blk IS NOT NULL
           OR (rs.cnt IS NOT NULL AND k.solved < k.len
               AND ((k.role = session_user AND (k.lease = ANY (coalesce(p_leases, '{}')) OR k.holder = p_who))
                    OR k.lease_until IS NULL OR k.lease_until < now()))
    FROM queens_block k
    LEFT JOIN (SELECT (u.e / campaign.block_size)::integer AS blk, count(*) AS cnt, min(u.i) AS lo,
                      max(u.i) AS hi
               FROM unnest(r_entry) WITH ORDINALITY AS u(e, i), campaign GROUP BY 1) rs
           ON rs.blk = k.block
    LEFT JOIN (SELECT DISTINCT (e / campaign.block_size)::integer AS blk FROM unnest(c_entry) e, campaign) cs
           ON cs.blk = k.block
    WHERE k.n = p_n
      AND k.block IN (SELECT DISTINCT (e / campaign.block_size)::integer
                      FROM unnest(r_entry || c_entry) e, campaign)
    ORDER BY k.block
$$;

-- Renews this role's leases `p_leases` on blocks still open; returns those renewed (the
-- leases its host keeps).
CREATE OR REPLACE FUNCTION queens_renew(p_n integer, p_leases bigint[], p_ttl float8) RETURNS bigint[]
LANGUAGE sql
SET search_path = @schema@, pg_temp AS $$
    WITH renewed AS (
        UPDATE queens_block k SET lease_until = now() + queens_ttl(p_ttl)
        WHERE k.n = p_n AND k.lease = ANY (coalesce(p_leases, '{}')) AND k.role = session_user
          AND k.solved < k.len
        RETURNING k.lease)
    SELECT coalesce(array_agg(renewed.lease), '{}') FROM renewed
$$;

-- Commits a host's results (entry, word 2, cycles as 8 little-endian bytes or NULL),
-- corrections (entry, word 2; 0 withdraws), and history events, renews its leases
-- `p_leases`, and returns the leases kept and the campaign's totals.
-- A result lands on an unsolved entry of a block this role leases under one of `p_leases`
-- (or as holder `p_who`, under a newer lease), or that no one else holds a live lease on;
-- for a solved entry it is compared, never counted again (a different count is a recorded
-- dispute). A correction applies only to a count of this role's own solvers; any other is
-- recorded as a dispute, not applied. Every count must name a solver id of this role. The
-- totals change only here, by what landed.
CREATE OR REPLACE FUNCTION queens_commit(
    p_n integer, p_who text, p_ttl float8, p_leases bigint[],
    r_entry bigint[], r_word bigint[], r_cycles bytea[],
    c_entry bigint[], c_word bigint[], p_events text[],
    OUT o_kept bigint[], OUT o_subproblems bigint, OUT o_census bigint[],
    OUT o_solved bigint[], OUT o_solutions bigint[],
    OUT o_agreed bigint, OUT o_disputed bigint, OUT o_refused bigint)
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = @schema@, pg_temp AS $$
DECLARE
    role_first_block integer;          -- see queens_commit_enter
    check_share float8;                -- the share of this role's other counts checked
    sliceable boolean;                 -- see queens_commit_blocks
    touched record;                    -- a block the commit touches (queens_commit_blocks)
    stored record;                     -- its row as read (queens_block_read)
    landed record;                     -- what landed in it (queens_land)
    compared record;                   -- what was compared with it (queens_compare)
    corrected record;                  -- what its corrections did (queens_correct)
    landed_count bigint;               -- results that landed in it
    block_entries bytea;               -- its entries, as the steps change them
    block_cycles bytea;                -- its new cycle counts (NULL: unchanged)
    block_solved_change integer;       -- the change in its solved entries
    block_reopened boolean;            -- a correction made one of its entries unsolved again
    block_changed boolean;             -- something landed in it or a correction applied
    solved_change bigint[] := '{0,0,0}';  -- the campaign's solved entries per class, as they change
    sums_change bigint[] := '{0,0,0}';    -- its summed counts per class, likewise
    counts_given bigint := 0;          -- this role's counts that landed
    outvoted text[] := '{}';           -- roles outvoted by this commit's recomputations
    reasons text[] := '{}';            -- why, for each
    nth integer;
BEGIN
    role_first_block := queens_commit_enter(p_n);
    check_share := coalesce((SELECT m.value::float8 FROM queens_meta m WHERE m.key = 'cross_verify'), 0.02);
    o_agreed := 0;
    o_disputed := 0;
    o_refused := 0;
    r_entry := coalesce(r_entry, '{}');
    r_word := coalesce(r_word, '{}');
    r_cycles := coalesce(r_cycles, array_fill(NULL::bytea, ARRAY[cardinality(r_entry)]));
    c_entry := coalesce(c_entry, '{}');
    c_word := coalesce(c_word, '{}');
    PERFORM queens_commit_check(p_n, r_entry, r_word, r_cycles, c_entry, c_word);
    -- (Slices by subscript match positions only in arrays that start at 1, as sent.)
    sliceable := coalesce(array_lower(r_entry, 1), 1) = 1 AND coalesce(array_lower(r_word, 1), 1) = 1
                 AND coalesce(array_lower(r_cycles, 1), 1) = 1;
    FOR touched IN
        SELECT * FROM queens_commit_blocks(p_n, p_who, p_leases, r_entry, c_entry, sliceable)
        ORDER BY o_block
    LOOP
        SELECT * INTO stored
        FROM queens_block_read(p_n, touched.o_block, touched.o_locks, p_who, p_leases);
        block_entries := stored.o_entries;
        block_cycles := NULL;
        block_solved_change := 0;
        block_reopened := false;
        block_changed := false;
        landed_count := 0;
        IF stored.o_ours AND touched.o_results > 0 THEN
            SELECT * INTO landed
            FROM queens_land(touched.o_block, touched.o_first, touched.o_len, block_entries,
                             stored.o_cycles, r_entry[touched.o_lo:touched.o_hi],
                             r_word[touched.o_lo:touched.o_hi], r_cycles[touched.o_lo:touched.o_hi],
                             role_first_block IS NULL OR touched.o_block = role_first_block,
                             check_share);
            landed_count := landed.o_landed;
        END IF;
        IF landed_count > 0 THEN
            block_changed := true;
            block_entries := landed.o_entries;
            block_cycles := landed.o_cycles;
            block_solved_change := landed_count;
            solved_change := queens_plus(solved_change, landed.o_solved);
            sums_change := queens_plus(sums_change, landed.o_sums);
            counts_given := counts_given + landed_count;
            IF role_first_block IS NULL THEN
                role_first_block := touched.o_block;
                UPDATE queens_host h SET first_block = touched.o_block
                WHERE h.n = p_n AND h.role = session_user;
            END IF;
            PERFORM queens_check_later(p_n, touched.o_first, block_entries, landed.o_check_offs,
                                       landed.o_check_words);
        END IF;
        IF touched.o_results > landed_count THEN
            SELECT * INTO compared
            FROM queens_compare(p_n, p_who, touched.o_first, touched.o_len, block_entries,
                                stored.o_entries, stored.o_ours, r_entry[touched.o_lo:touched.o_hi],
                                r_word[touched.o_lo:touched.o_hi]);
            o_refused := o_refused + compared.o_refused;
            o_agreed := o_agreed + compared.o_agreed;
            o_disputed := o_disputed + compared.o_disputed;
            outvoted := outvoted || compared.o_outvoted;
            reasons := reasons || compared.o_reasons;
        END IF;
        IF touched.o_corrected THEN
            SELECT * INTO corrected
            FROM queens_correct(p_n, p_who, touched.o_first, touched.o_len, block_entries,
                                stored.o_ours, c_entry, c_word);
            o_refused := o_refused + corrected.o_refused;
            o_disputed := o_disputed + corrected.o_disputed;
            block_entries := corrected.o_entries;
            block_solved_change := block_solved_change + corrected.o_solved_entries;
            block_reopened := corrected.o_reopened;
            block_changed := block_changed OR corrected.o_changed;
            solved_change := queens_plus(solved_change, corrected.o_solved);
            sums_change := queens_plus(sums_change, corrected.o_sums);
        END IF;
        IF block_changed THEN
            PERFORM queens_block_write(p_n, touched.o_block, p_who, block_entries, block_cycles,
                                       block_solved_change, block_reopened);
        END IF;
    END LOOP;
    o_kept := queens_renew(p_n, p_leases, p_ttl);
    IF solved_change <> '{0,0,0}' OR sums_change <> '{0,0,0}' THEN
        PERFORM queens_add_totals(p_n, solved_change, sums_change);
    END IF;
    IF counts_given > 0 THEN
        UPDATE queens_host h SET given = h.given + counts_given WHERE h.n = p_n AND h.role = session_user;
    END IF;
    FOR nth IN 1 .. cardinality(outvoted) LOOP
        PERFORM queens_quarantine(p_n, outvoted[nth], reasons[nth], p_who);
    END LOOP;
    SELECT c.subproblems, c.census, c.solved, c.solutions
    INTO o_subproblems, o_census, o_solved, o_solutions
    FROM queens_campaign c WHERE c.n = p_n;
    INSERT INTO queens_event (n, host, role, event)
    SELECT p_n, p_who, session_user, v::jsonb FROM unnest(coalesce(p_events, '{}')) AS v;
END
$$;
