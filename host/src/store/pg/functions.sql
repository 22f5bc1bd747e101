-- A host's work on a shared campaign, as functions that run with the tables' owner's rights
-- (SECURITY DEFINER, search path fixed to the campaign's schema): a host role may call these
-- and read the tables, nothing else. Each one acts as the role that logged in
-- (session_user), which a client cannot choose. @schema@ is the campaign's schema.

-- Word k (0: pre-placement, 1: solution) of the entry at `off` of a block's entries.
-- (These small helpers have no SET clause, so that the planner inlines them; they name only
-- built-in functions, which pg_catalog, searched first, provides.)
CREATE OR REPLACE FUNCTION queens_word(e bytea, off integer, k integer) RETURNS bigint
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT ('x' || encode(substring(e FROM off * 16 + k * 8 + 1 FOR 8), 'hex'))::bit(64)::bigint
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

-- Older builds' whole-block rebuilds (a piece per entry), replaced by queens_patch.
DROP FUNCTION IF EXISTS queens_rebuild(bytea, bigint[]);
DROP FUNCTION IF EXISTS queens_rebuild_cycles(bytea, bytea[]);

-- Seconds a lease may last: at least one, at most a day (a host cannot hoard blocks).
CREATE OR REPLACE FUNCTION queens_ttl(secs float8) RETURNS interval
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = @schema@, pg_temp AS $$
    SELECT make_interval(secs => least(greatest(coalesce(secs, 1), 1), 86400))
$$;

-- Refuses a campaign that does not exist, and a role quarantined in it.
CREATE OR REPLACE FUNCTION queens_admit(p_n integer) RETURNS void
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = @schema@, pg_temp AS $$
DECLARE
    why text;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM queens_campaign c WHERE c.n = p_n) THEN
        RAISE EXCEPTION 'no campaign of N = %', p_n USING ERRCODE = 'no_data_found';
    END IF;
    SELECT h.reason INTO why FROM queens_host h
    WHERE h.n = p_n AND h.role = session_user AND h.quarantined IS NOT NULL;
    IF FOUND THEN
        RAISE EXCEPTION 'role % is quarantined in the campaign of N = %, every count it gave withdrawn: %',
            session_user, p_n, why USING ERRCODE = 'insufficient_privilege';
    END IF;
END
$$;

-- Whether the solver of word 2 `w` is one of role `who`'s.
CREATE OR REPLACE FUNCTION queens_owns(p_n integer, w bigint, who text) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = @schema@, pg_temp AS $$
    SELECT EXISTS (SELECT 1 FROM queens_solver s
                   WHERE s.n = p_n AND s.id = ((w >> 52) & 4095)::integer AND s.role = who)
$$;

-- Leases the first open block (unleased, lapsed, or this holder's own whose grant was lost
-- with a connection) to `p_who` of this role.
CREATE OR REPLACE FUNCTION queens_lease(p_n integer, p_who text, p_ttl float8, p_held bigint[])
RETURNS TABLE (o_block integer, o_first bigint, o_lease bigint, o_entries bytea, o_solved integer)
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = @schema@, pg_temp AS $$
BEGIN
    PERFORM queens_admit(p_n);
    RETURN QUERY
    WITH free AS (
        SELECT k.block FROM queens_block k
        WHERE k.n = p_n AND k.solved < k.len
          AND (k.lease_until IS NULL OR k.lease_until < now()
               OR (k.holder = p_who AND k.role = session_user
                   AND k.lease <> ALL (coalesce(p_held, '{}'))))
        ORDER BY k.block LIMIT 1
        FOR UPDATE SKIP LOCKED)
    UPDATE queens_block b
    SET lease = nextval('queens_lease'), holder = p_who, role = session_user,
        lease_until = now() + queens_ttl(p_ttl)
    FROM free WHERE b.n = p_n AND b.block = free.block
    RETURNING b.block, b.first, b.lease, b.entries, b.solved;
END
$$;

-- Ends the live leases of this role's holders `p_holders` (processes known to be gone).
CREATE OR REPLACE FUNCTION queens_release(p_n integer, p_holders text[]) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = @schema@, pg_temp AS $$
DECLARE
    freed bigint;
BEGIN
    UPDATE queens_block k SET lease_until = now() - interval '1 second'
    WHERE k.n = p_n AND k.holder = ANY (p_holders) AND k.role = session_user
      AND k.lease_until > now();
    GET DIAGNOSTICS freed = ROW_COUNT;
    RETURN freed;
END
$$;

-- The solver id of board `p_link` ("host link") of this role, given out when new. A name
-- another role holds (hosts of one machine, logged in as different roles) becomes
-- "host link (role)"; one an older version recorded without a role is taken over only
-- while the campaign has no host role (everyone was trusted then).
CREATE OR REPLACE FUNCTION queens_solver_id(p_n integer, p_link text) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = @schema@, pg_temp AS $$
DECLARE
    r record;
    nid integer;
    name text := p_link;
BEGIN
    PERFORM queens_admit(p_n);
    PERFORM pg_advisory_xact_lock(@lock_campaign@::bigint + p_n);
    SELECT s.id, s.role INTO r FROM queens_solver s WHERE s.n = p_n AND s.link = name;
    IF FOUND AND r.role IS NULL AND NOT EXISTS (SELECT 1 FROM queens_meta m WHERE m.key = 'hosts') THEN
        UPDATE queens_solver s SET role = session_user WHERE s.n = p_n AND s.id = r.id;
        RETURN r.id;
    END IF;
    IF FOUND AND r.role IS DISTINCT FROM session_user THEN
        name := p_link || ' (' || session_user || ')';
        SELECT s.id, s.role INTO r FROM queens_solver s WHERE s.n = p_n AND s.link = name;
    END IF;
    IF FOUND THEN
        IF r.role IS DISTINCT FROM session_user THEN
            RAISE EXCEPTION 'solver % (%) is recorded for role %, not %', r.id, name,
                coalesce(r.role, 'unknown (an older version)'), session_user
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        RETURN r.id;
    END IF;
    SELECT coalesce(max(s.id), 0) + 1 INTO nid FROM queens_solver s WHERE s.n = p_n;
    IF nid > 4095 THEN
        RAISE EXCEPTION 'the campaign has more than 4095 solvers; their ids do not fit the entry'
            USING ERRCODE = 'program_limit_exceeded';
    END IF;
    INSERT INTO queens_solver (n, id, link, role) VALUES (p_n, nid, name, session_user);
    RETURN nid;
END
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
    me text := session_user;
    bs integer;
    total bigint;
    g_solved bigint[] := '{0,0,0}';
    g_sums bigint[] := '{0,0,0}';
    b record;
    x record;
    nw bigint[];
    stored bigint;
    slot integer;
    d_solved integer;
    share float8;
    h_first integer;
    v_given bigint := 0;
    outvoted text[] := '{}';
    reasons text[] := '{}';
    j integer;
    q_now boolean;
    q_why text;
    ents bytea;
    ours boolean;
    sliced boolean;
    reopen boolean;
    x_e bigint[];
    x_w bigint[];
    x_s bigint[];
    j_who text[];
    j_why text[];
    old bytea;
    mine integer[];
    r_cyc bytea[];
    cyc bytea;
    img bytea;
    cimg bytea;
    any_c boolean;
    l_count bigint;
    l_min integer;
    l_n bigint[];
    l_sum bigint[];
    l_bad bigint;
    k_off integer[];
    k_w bigint[];
BEGIN
    PERFORM queens_admit(p_n);
    -- This role's row stays locked to the end: a quarantine (which updates it) waits for
    -- this commit and then withdraws what it landed, or this commit sees the quarantine.
    INSERT INTO queens_host AS h (n, role) VALUES (p_n, me)
    ON CONFLICT (n, role) DO UPDATE SET seen = now()
    RETURNING h.first_block, h.quarantined IS NOT NULL, h.reason INTO h_first, q_now, q_why;
    IF q_now THEN
        RAISE EXCEPTION 'role % is quarantined in the campaign of N = %, every count it gave withdrawn: %',
            me, p_n, q_why USING ERRCODE = 'insufficient_privilege';
    END IF;
    share := coalesce((SELECT m.value::float8 FROM queens_meta m WHERE m.key = 'cross_verify'), 0.02);
    o_agreed := 0;
    o_disputed := 0;
    o_refused := 0;
    r_entry := coalesce(r_entry, '{}');
    r_word := coalesce(r_word, '{}');
    c_entry := coalesce(c_entry, '{}');
    c_word := coalesce(c_word, '{}');
    IF cardinality(r_entry) <> cardinality(r_word)
       OR (r_cycles IS NOT NULL AND cardinality(r_cycles) <> cardinality(r_entry))
       OR cardinality(c_entry) <> cardinality(c_word) THEN
        RAISE EXCEPTION 'results and corrections need as many words as entries'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT c.block_size, c.subproblems INTO bs, total FROM queens_campaign c WHERE c.n = p_n;
    r_cyc := coalesce(r_cycles, array_fill(NULL::bytea, ARRAY[cardinality(r_entry)]));
    mine := ARRAY(SELECT s.id FROM queens_solver s WHERE s.n = p_n AND s.role = me);
    -- One pass over the results and corrections finds any fault; the second names it.
    IF EXISTS (SELECT 1 FROM unnest(r_entry, r_word, r_cyc) AS u(e, w, c)
               WHERE e IS NULL OR e < 0 OR e >= total OR w IS NULL OR w = 0
                  OR (c IS NOT NULL AND length(c) <> 8)
                  OR NOT ((w >> 52) & 4095)::integer = ANY (mine))
       OR EXISTS (SELECT 1 FROM unnest(c_entry, c_word) AS u(e, w)
                  WHERE e IS NULL OR e < 0 OR e >= total OR w IS NULL
                     OR (w <> 0 AND NOT ((w >> 52) & 4095)::integer = ANY (mine))) THEN
        IF EXISTS (SELECT 1 FROM unnest(r_entry || c_entry) e WHERE e IS NULL OR e < 0 OR e >= total) THEN
            RAISE EXCEPTION 'an entry outside the campaign of N = % (% entries)', p_n, total
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        IF EXISTS (SELECT 1 FROM unnest(r_word) w WHERE w IS NULL OR w = 0)
           OR EXISTS (SELECT 1 FROM unnest(r_cycles) c WHERE c IS NOT NULL AND length(c) <> 8) THEN
            RAISE EXCEPTION 'a result without a count, or with a cycle count that is not 8 bytes'
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        RAISE EXCEPTION 'a count names a solver id that is not one of role %''s', me
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    -- (Slices by subscript match positions only in arrays that start at 1, as sent.)
    sliced := coalesce(array_lower(r_entry, 1), 1) = 1 AND coalesce(array_lower(r_word, 1), 1) = 1
              AND coalesce(array_lower(r_cyc, 1), 1) = 1;
    -- The blocks touched, in order. Only those where something may change are locked (in
    -- that order, so that two hosts committing at once never deadlock): results that may
    -- land (unsolved entries, in a block this role leases or no one holds) or corrections.
    -- The others are only compared with (other roles' counts recomputed, repeats): read as
    -- they stand, without waiting for the commits that hold them.
    FOR b IN
        SELECT k.block, k.first, k.len, coalesce(rs.cnt, 0) AS cnt,
               -- the block's results, when they are together (as a host sends them, sorted
               -- by entry): only that slice is read for it, so that a commit's cost does not
               -- grow with its results times its blocks; else all of them, filtered
               CASE WHEN sliced AND rs.hi - rs.lo + 1 = rs.cnt THEN rs.lo ELSE 1 END AS lo,
               CASE WHEN sliced AND rs.hi - rs.lo + 1 = rs.cnt THEN rs.hi ELSE cardinality(r_entry) END AS hi,
               cs.blk IS NOT NULL
               OR (rs.cnt IS NOT NULL AND k.solved < k.len
                   AND ((k.role = me AND (k.lease = ANY (coalesce(p_leases, '{}')) OR k.holder = p_who))
                        OR k.lease_until IS NULL OR k.lease_until < now())) AS locks
        FROM queens_block k
        LEFT JOIN (SELECT (u.e / bs)::integer AS blk, count(*) AS cnt, min(u.i) AS lo, max(u.i) AS hi
                   FROM unnest(r_entry) WITH ORDINALITY AS u(e, i) GROUP BY 1) rs
               ON rs.blk = k.block
        LEFT JOIN (SELECT DISTINCT (e / bs)::integer AS blk FROM unnest(c_entry) e) cs
               ON cs.blk = k.block
        WHERE k.n = p_n
          AND k.block IN (SELECT DISTINCT (e / bs)::integer FROM unnest(r_entry || c_entry) e)
        ORDER BY k.block
    LOOP
        nw := NULL;
        reopen := false;
        d_solved := 0;
        l_count := 0;
        any_c := false;
        -- Decompressed once: every entry read below is then a slice of plain bytes.
        IF b.locks THEN
            -- (This holder's own lease under a newer id counts too: a host whose lease
            -- lapsed while a commit was on its way leases the block again, and that commit
            -- still names the old id.)
            SELECT k.entries || ''::bytea, k.cycles || ''::bytea,
                   (k.role = me AND (k.lease = ANY (coalesce(p_leases, '{}')) OR k.holder = p_who))
                   OR k.lease_until IS NULL OR k.lease_until < now()
            INTO ents, cyc, ours
            FROM queens_block k WHERE k.n = p_n AND k.block = b.block
            FOR UPDATE;
        ELSE
            SELECT k.entries || ''::bytea INTO ents
            FROM queens_block k WHERE k.n = p_n AND k.block = b.block;
            cyc := NULL;
            ours := false;
        END IF;
        old := ents;
        -- What lands, in one statement: the first result for each entry unsolved here, in a
        -- block this role leases or no one holds. The new bytes of the entries from the
        -- first to the last that land are built in the same pass (each piece: the entries
        -- between, word 1, the new word 2) and put in place at once, so that a commit costs
        -- what its results do, not what the block does.
        IF ours AND b.cnt > 0 THEN
            -- (One sort, DISTINCT ON's: the window and the aggregates take its order, which
            -- is checked below rather than assumed.)
            SELECT count(*), min(g.off),
                   string_agg(substring(ents FROM g.prev * 16 + 17 FOR (g.off - g.prev - 1) * 16 + 8)
                              || int8send(g.w), ''::bytea),
                   string_agg(CASE WHEN cyc IS NULL THEN decode(repeat('00', (g.off - g.prev - 1) * 8), 'hex')
                                   ELSE substring(cyc FROM g.prev * 8 + 9 FOR (g.off - g.prev - 1) * 8) END
                              || coalesce(g.c, substring(cyc FROM g.off * 8 + 1 FOR 8),
                                          '\x0000000000000000'::bytea), ''::bytea),
                   coalesce(bool_or(g.c IS NOT NULL), false),
                   ARRAY[count(*) FILTER (WHERE g.cls = 3), count(*) FILTER (WHERE g.cls = 2),
                         count(*) FILTER (WHERE g.cls = 1)],
                   ARRAY[coalesce(sum(queens_whole(g.w)) FILTER (WHERE g.cls = 3), 0),
                         coalesce(sum(queens_whole(g.w)) FILTER (WHERE g.cls = 2), 0),
                         coalesce(sum(queens_whole(g.w)) FILTER (WHERE g.cls = 1), 0)],
                   count(*) FILTER (WHERE g.cls = 0),
                   coalesce(array_agg(g.off) FILTER (WHERE g.pick), '{}'),
                   coalesce(array_agg(g.w) FILTER (WHERE g.pick), '{}')
            INTO l_count, l_min, img, cimg, any_c, l_n, l_sum, l_bad, k_off, k_w
            FROM (SELECT f.off, f.w, f.c, coalesce(lag(f.off) OVER (ORDER BY f.e), f.off - 1) AS prev,
                         -- the class bits of word 1 ((w1 >> 23) & 3: 3 none, 2 point, 1 rotate)
                         ((get_byte(ents, f.off * 16 + 4) & 1) << 1) | (get_byte(ents, f.off * 16 + 5) >> 7) AS cls,
                         -- chosen for another host to recompute: all of this role's first
                         -- block (this one, when it has none yet), then a random share
                         (h_first IS NULL OR b.block = h_first OR random() < share) AS pick
                  FROM (SELECT DISTINCT ON (v.e) v.e, (v.e - b.first)::integer AS off, v.w, v.c
                        FROM unnest(r_entry[b.lo:b.hi], r_word[b.lo:b.hi], r_cyc[b.lo:b.hi])
                             WITH ORDINALITY AS v(e, w, c, i)
                        WHERE v.e >= b.first AND v.e < b.first + b.len
                        ORDER BY v.e, v.i) f
                  WHERE substring(ents FROM f.off * 16 + 9 FOR 8) = '\x0000000000000000'::bytea
                  ORDER BY f.e) g;
            IF l_bad > 0 THEN
                RAISE EXCEPTION 'an entry of block % has no symmetry class: the block is damaged', b.block
                    USING ERRCODE = 'data_corrupted';
            END IF;
        END IF;
        IF l_count > 0 THEN
            ents := overlay(ents PLACING img FROM l_min * 16 + 1);
            -- Word 1 of every entry as it was (all differ), so the pieces were joined in
            -- entry order, the cycles' with them: a bitwise comparison of the span.
            IF ('x' || encode(img, 'hex'))::varbit & ('x' || repeat('ffffffffffffffff0000000000000000', length(img) / 16))::varbit
               <> ('x' || encode(substring(old FROM l_min * 16 + 1 FOR length(img)), 'hex'))::varbit
                  & ('x' || repeat('ffffffffffffffff0000000000000000', length(img) / 16))::varbit THEN
                RAISE EXCEPTION 'the merge of block % put an entry out of place', b.block
                    USING ERRCODE = 'internal_error';
            END IF;
            IF any_c THEN
                cyc := overlay(coalesce(cyc, decode(repeat('00', b.len * 8), 'hex')) PLACING cimg FROM l_min * 8 + 1);
            END IF;
            FOR j IN 1 .. 3 LOOP
                g_solved[j] := g_solved[j] + l_n[j];
                g_sums[j] := g_sums[j] + l_sum[j];
            END LOOP;
            d_solved := l_count;
            v_given := v_given + l_count;
            IF h_first IS NULL THEN
                h_first := b.block;
                UPDATE queens_host h SET first_block = b.block WHERE h.n = p_n AND h.role = me;
            END IF;
            INSERT INTO queens_check AS c (n, entry, giver, word, w1)
            SELECT p_n, b.first + t.o, me, t.w, queens_word(ents, t.o, 0) FROM unnest(k_off, k_w) AS t(o, w)
            ON CONFLICT (n, entry) DO UPDATE
            SET giver = me, word = excluded.word, w1 = excluded.w1, state = 'open', second = NULL, second_word = NULL,
                confirmer = NULL, checker = NULL, holder = NULL, until = NULL, t = now();
        END IF;
        -- The rest, in one statement (recomputations of chosen counts, repeats, refusals):
        -- compared with what is stored (now including what landed above), never counted.
        -- A recomputation of a count chosen for checking, by a role it is not yet from (its
        -- first one for the entry here): agreement confirms it; the first disagreement asks
        -- a third role, whose count outvotes one of the two.
        IF b.cnt > l_count THEN
            SELECT coalesce(array_agg(v.e ORDER BY v.i), '{}'), coalesce(array_agg(v.w ORDER BY v.i), '{}'),
                   coalesce(array_agg(queens_word(ents, v.off, 1) ORDER BY v.i), '{}')
            INTO x_e, x_w, x_s
            FROM (SELECT u.e, (u.e - b.first)::integer AS off, u.w, u.i,
                         row_number() OVER (PARTITION BY u.e ORDER BY u.i) AS nth
                  FROM unnest(r_entry[b.lo:b.hi], r_word[b.lo:b.hi]) WITH ORDINALITY AS u(e, w, i)
                  WHERE u.e >= b.first AND u.e < b.first + b.len) v
            WHERE NOT ours OR v.nth > 1
               OR substring(old FROM v.off * 16 + 9 FOR 8) <> '\x0000000000000000'::bytea;
            -- (Planned at each call, knowing how many results it has: a plan cached while
            -- the campaign had few checks pending could walk them all for every result.)
            EXECUTE $q$
            WITH voted AS (
                UPDATE queens_check c
                SET state = CASE WHEN c.state = 'disputed' THEN
                                     CASE WHEN queens_whole(f.w) IN (queens_whole(c.word), queens_whole(c.second_word))
                                          THEN 'settled' ELSE 'unsettled' END
                                 WHEN queens_whole(f.w) = queens_whole(c.word) THEN 'agreed'
                                 ELSE 'disputed' END,
                    second = CASE WHEN c.state = 'open' AND queens_whole(f.w) <> queens_whole(c.word)
                                  THEN $5 ELSE c.second END,
                    second_word = CASE WHEN c.state = 'open' AND queens_whole(f.w) <> queens_whole(c.word)
                                       THEN f.w ELSE c.second_word END,
                    confirmer = CASE WHEN c.state = 'open' AND queens_whole(f.w) <> queens_whole(c.word)
                                     THEN c.confirmer ELSE $5 END,
                    checker = NULL, holder = NULL, until = NULL
                FROM (SELECT DISTINCT ON (t.e) t.e, t.w, t.s FROM unnest($2, $3, $4) WITH ORDINALITY AS t(e, w, s, i)
                      WHERE t.s <> 0 ORDER BY t.e, t.i) f
                WHERE c.n = $1 AND c.entry = f.e AND c.word = f.s
                  AND c.giver <> $5 AND c.second IS DISTINCT FROM $5 AND c.state IN ('open', 'disputed')
                RETURNING c.entry, c.state, c.giver, c.second, c.word, c.second_word, f.w AS w)
            SELECT coalesce(array_agg(CASE WHEN queens_whole(t.w) = queens_whole(t.word)
                                                       THEN t.second ELSE t.giver END ORDER BY t.entry)
                                        FILTER (WHERE t.state = 'settled'), '{}'),
                   coalesce(array_agg(CASE WHEN queens_whole(t.w) = queens_whole(t.word)
                       THEN format('its count %s of entry %s was outvoted by %s and %s (%s)',
                                   queens_whole(t.second_word), t.entry, t.giver, $5, queens_whole(t.w))
                       ELSE format('its count %s of entry %s was outvoted by %s and %s (%s)',
                                   queens_whole(t.word), t.entry, t.second, $5, queens_whole(t.w)) END
                       ORDER BY t.entry) FILTER (WHERE t.state = 'settled'), '{}')
            FROM voted t
            $q$ INTO j_who, j_why USING p_n, x_e, x_w, x_s, me;
            outvoted := outvoted || j_who;
            reasons := reasons || j_why;
            SELECT o_refused + count(*) FILTER (WHERE t.s = 0),
                   o_agreed + count(*) FILTER (WHERE t.s <> 0 AND queens_whole(t.s) = queens_whole(t.w)),
                   count(*) FILTER (WHERE t.s <> 0 AND queens_whole(t.s) <> queens_whole(t.w))
            INTO o_refused, o_agreed, l_bad
            FROM unnest(x_s, x_w) AS t(s, w);
            IF l_bad > 0 THEN
                o_disputed := o_disputed + l_bad;
                INSERT INTO queens_dispute (n, entry, kept, other, host, role)
                SELECT p_n, t.e, t.s, t.w, p_who, me
                FROM unnest(x_e, x_w, x_s) WITH ORDINALITY AS t(e, w, s, i)
                WHERE t.s <> 0 AND queens_whole(t.s) <> queens_whole(t.w)
                ORDER BY t.i;
            END IF;
        END IF;
        FOR x IN
            SELECT (u.e - b.first)::integer AS off, u.w
            FROM unnest(c_entry, c_word) WITH ORDINALITY AS u(e, w, i)
            WHERE u.e >= b.first AND u.e < b.first + b.len
            ORDER BY u.i
        LOOP
            stored := coalesce(nw[x.off + 1], queens_word(ents, x.off, 1));
            CONTINUE WHEN stored = x.w;
            IF (stored = 0 AND NOT ours) OR (stored <> 0 AND NOT queens_owns(p_n, stored, me))
               OR (x.w <> 0 AND EXISTS (SELECT 1 FROM queens_check c WHERE c.n = p_n
                                        AND c.entry = b.first + x.off AND c.state = 'disputed')) THEN
                IF x.w <> 0 THEN
                    o_disputed := o_disputed + 1;
                    INSERT INTO queens_dispute (n, entry, kept, other, host, role)
                    VALUES (p_n, b.first + x.off, stored, x.w, p_who, me);
                END IF;
                o_refused := o_refused + 1;
                CONTINUE;
            END IF;
            slot := queens_slot(queens_word(ents, x.off, 0));
            IF slot IS NULL THEN
                RAISE EXCEPTION 'entry % has no symmetry class: the block is damaged', b.first + x.off
                    USING ERRCODE = 'data_corrupted';
            END IF;
            IF stored <> 0 THEN
                g_sums[slot] := g_sums[slot] - queens_whole(stored);
                IF x.w = 0 THEN
                    g_solved[slot] := g_solved[slot] - 1;
                    d_solved := d_solved - 1;
                    reopen := true;
                END IF;
            ELSE
                g_solved[slot] := g_solved[slot] + 1;
                d_solved := d_solved + 1;
            END IF;
            IF x.w <> 0 THEN
                g_sums[slot] := g_sums[slot] + queens_whole(x.w);
            END IF;
            IF nw IS NULL THEN
                nw := array_fill(NULL::bigint, ARRAY[b.len]);
            END IF;
            nw[x.off + 1] := x.w;
            -- A count of its own it replaced is checked anew; one withdrawn is not.
            UPDATE queens_check c
            SET state = CASE WHEN x.w = 0 THEN 'void' ELSE 'open' END,
                word = CASE WHEN x.w = 0 THEN c.word ELSE x.w END,
                second = NULL, second_word = NULL, confirmer = NULL
            WHERE c.n = p_n AND c.entry = b.first + x.off AND c.giver = me AND c.state <> 'void';
        END LOOP;
        IF nw IS NOT NULL THEN
            ents := queens_patch(ents, 16, 8,
                ARRAY(SELECT t.i::integer - 1 FROM unnest(nw) WITH ORDINALITY AS t(w, i)
                      WHERE t.w IS NOT NULL ORDER BY t.i),
                ARRAY(SELECT int8send(t.w) FROM unnest(nw) WITH ORDINALITY AS t(w, i)
                      WHERE t.w IS NOT NULL ORDER BY t.i));
        END IF;
        IF l_count > 0 OR nw IS NOT NULL THEN
            UPDATE queens_block k
            SET entries = ents,
                cycles = CASE WHEN any_c THEN cyc ELSE k.cycles END,
                solved = k.solved + d_solved,
                -- A block whose entries a retraction made unsolved again while another
                -- holder leases it is let go: that holder queued its unsolved entries when it
                -- leased it, not these (its next commit finds the lease gone).
                lease = CASE WHEN k.solved + d_solved = k.len OR (reopen AND k.holder IS DISTINCT FROM p_who)
                             THEN NULL ELSE k.lease END,
                holder = CASE WHEN k.solved + d_solved = k.len OR (reopen AND k.holder IS DISTINCT FROM p_who)
                              THEN NULL ELSE k.holder END,
                role = CASE WHEN k.solved + d_solved = k.len OR (reopen AND k.holder IS DISTINCT FROM p_who)
                            THEN NULL ELSE k.role END,
                lease_until = CASE WHEN k.solved + d_solved = k.len OR (reopen AND k.holder IS DISTINCT FROM p_who)
                                   THEN NULL ELSE k.lease_until END
            WHERE k.n = p_n AND k.block = b.block;
        END IF;
    END LOOP;
    WITH renewed AS (
        UPDATE queens_block k SET lease_until = now() + queens_ttl(p_ttl)
        WHERE k.n = p_n AND k.lease = ANY (coalesce(p_leases, '{}')) AND k.role = me
          AND k.solved < k.len
        RETURNING k.lease)
    SELECT coalesce(array_agg(renewed.lease), '{}') INTO o_kept FROM renewed;
    IF g_solved <> '{0,0,0}' OR g_sums <> '{0,0,0}' THEN
        UPDATE queens_campaign c
        SET solved = ARRAY[c.solved[1] + g_solved[1], c.solved[2] + g_solved[2], c.solved[3] + g_solved[3]],
            solutions = ARRAY[c.solutions[1] + g_sums[1], c.solutions[2] + g_sums[2],
                              c.solutions[3] + g_sums[3]]
        WHERE c.n = p_n;
    END IF;
    IF v_given > 0 THEN
        UPDATE queens_host h SET given = h.given + v_given WHERE h.n = p_n AND h.role = me;
    END IF;
    FOR j IN 1 .. cardinality(outvoted) LOOP
        PERFORM queens_quarantine(p_n, outvoted[j], reasons[j], p_who);
    END LOOP;
    SELECT c.subproblems, c.census, c.solved, c.solutions
    INTO o_subproblems, o_census, o_solved, o_solutions
    FROM queens_campaign c WHERE c.n = p_n;
    INSERT INTO queens_event (n, host, role, event)
    SELECT p_n, p_who, me, v::jsonb FROM unnest(coalesce(p_events, '{}')) AS v;
END
$$;

-- Zeroes every count of solvers `ids` in the campaign (blocks locked in order); the totals
-- lose them, their checks are void. A block this makes unsolved again is let go by whoever
-- leases it, except by holder `p_keep` of this role (the withdrawing host, which queues the
-- entries itself): a holder queued a block's unsolved entries when it leased it, not these,
-- and would otherwise keep the block to the end. Returns the entries, with word 1 and the
-- solver.
DROP FUNCTION IF EXISTS queens_zero(integer, integer[]);
CREATE OR REPLACE FUNCTION queens_zero(p_n integer, ids integer[], p_keep text)
RETURNS TABLE (o_entry bigint, o_w1 bigint, o_solver integer)
LANGUAGE plpgsql
SET search_path = @schema@, pg_temp AS $$
DECLARE
    b record;
    hits integer[];
    j integer;
    w1 bigint;
    slot integer;
    g_solved bigint[] := '{0,0,0}';
    g_sums bigint[] := '{0,0,0}';
    ents bytea;
BEGIN
    FOR b IN
        SELECT k.block, k.first, k.len, k.entries,
               coalesce(k.holder = p_keep AND k.role = session_user, false) AS kept
        FROM queens_block k
        WHERE k.n = p_n AND k.solved > 0 ORDER BY k.block FOR UPDATE
    LOOP
        ents := b.entries || ''::bytea;
        SELECT array_agg(i ORDER BY i) INTO hits FROM generate_series(0, b.len - 1) AS i
        WHERE ((get_byte(ents, i * 16 + 8) << 4) | (get_byte(ents, i * 16 + 9) >> 4)) = ANY (ids);
        CONTINUE WHEN hits IS NULL;
        FOREACH j IN ARRAY hits LOOP
            w1 := queens_word(ents, j, 0);
            slot := queens_slot(w1);
            g_solved[slot] := g_solved[slot] - 1;
            g_sums[slot] := g_sums[slot] - queens_whole(queens_word(ents, j, 1));
            o_entry := b.first + j;
            o_w1 := w1;
            o_solver := ((queens_word(ents, j, 1) >> 52) & 4095)::integer;
            RETURN NEXT;
        END LOOP;
        UPDATE queens_block k SET entries = queens_patch(ents, 16, 8, hits,
                                      array_fill('\x0000000000000000'::bytea, ARRAY[cardinality(hits)])),
                                  solved = k.solved - cardinality(hits),
                                  lease = CASE WHEN b.kept THEN k.lease END,
                                  holder = CASE WHEN b.kept THEN k.holder END,
                                  role = CASE WHEN b.kept THEN k.role END,
                                  lease_until = CASE WHEN b.kept THEN k.lease_until END
        WHERE k.n = p_n AND k.block = b.block;
        UPDATE queens_check c SET state = 'void'
        WHERE c.n = p_n AND c.entry IN (SELECT b.first + h FROM unnest(hits) h)
          AND c.state IN ('open', 'disputed', 'agreed');
    END LOOP;
    UPDATE queens_campaign c
    SET solved = ARRAY[c.solved[1] + g_solved[1], c.solved[2] + g_solved[2], c.solved[3] + g_solved[3]],
        solutions = ARRAY[c.solutions[1] + g_sums[1], c.solutions[2] + g_sums[2], c.solutions[3] + g_sums[3]]
    WHERE c.n = p_n;
END
$$;

-- Withdraws every count solver `p_solver` of this role ever gave, in every session: the
-- entries are unsolved again (their blocks open for any host), the totals lose them, the
-- withdrawal is recorded. Returns the entries withdrawn, with their word 1.
CREATE OR REPLACE FUNCTION queens_withdraw(p_n integer, p_who text, p_solver integer, p_reason text)
RETURNS TABLE (o_entry bigint, o_w1 bigint)
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = @schema@, pg_temp AS $$
DECLARE
    gone bigint;
BEGIN
    PERFORM queens_admit(p_n);
    IF NOT EXISTS (SELECT 1 FROM queens_solver s
                   WHERE s.n = p_n AND s.id = p_solver AND s.role = session_user) THEN
        RAISE EXCEPTION 'solver % of N = % is not one of role %''s', p_solver, p_n, session_user
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN QUERY SELECT z.o_entry, z.o_w1 FROM queens_zero(p_n, ARRAY[p_solver], p_who) z;
    GET DIAGNOSTICS gone = ROW_COUNT;
    INSERT INTO queens_withdrawal (n, solver, role, host, entries, reason)
    VALUES (p_n, p_solver, session_user, p_who, gone, p_reason);
END
$$;

-- Quarantines role `r` in the campaign, outvoted by two other sources: it may lease and
-- commit no more, its leases end, and every count of its solvers in every session is
-- withdrawn and reopened for the others; its votes still pending are void. Recorded in the
-- events (by `p_who` of the role that cast the deciding vote) and the withdrawals.
CREATE OR REPLACE FUNCTION queens_quarantine(p_n integer, r text, p_reason text, p_who text)
RETURNS bigint
LANGUAGE plpgsql
SET search_path = @schema@, pg_temp AS $$
DECLARE
    ids integer[];
    gone bigint;
BEGIN
    INSERT INTO queens_host AS h (n, role, quarantined, reason) VALUES (p_n, r, now(), p_reason)
    ON CONFLICT (n, role) DO UPDATE SET quarantined = now(), reason = p_reason
    WHERE h.quarantined IS NULL;
    IF NOT FOUND THEN
        RETURN 0;  -- quarantined already
    END IF;
    UPDATE queens_block k SET lease_until = now() - interval '1 second'
    WHERE k.n = p_n AND k.role = r AND k.lease_until > now();
    UPDATE queens_check c SET checker = NULL, holder = NULL, until = NULL
    WHERE c.n = p_n AND c.checker = r;
    UPDATE queens_check c SET state = 'open', second = NULL, second_word = NULL
    WHERE c.n = p_n AND c.second = r AND c.state = 'disputed';
    SELECT coalesce(array_agg(s.id), '{}') INTO ids FROM queens_solver s WHERE s.n = p_n AND s.role = r;
    WITH z AS (SELECT * FROM queens_zero(p_n, ids, NULL)),
    recorded AS (
        INSERT INTO queens_withdrawal (n, solver, role, host, entries, reason)
        SELECT p_n, z.o_solver, r, p_who, count(*), 'role quarantined: ' || p_reason
        FROM z GROUP BY z.o_solver
        RETURNING entries)
    SELECT coalesce(sum(recorded.entries), 0) INTO gone FROM recorded;
    INSERT INTO queens_event (n, host, role, event)
    VALUES (p_n, p_who, session_user,
            jsonb_build_object('event', 'quarantined_role', 'role', r, 'reason', p_reason,
                               'withdrawn', gone, 't', extract(epoch FROM now())));
    RETURN gone;
END
$$;

-- Up to `p_max` chosen counts of other roles for this role to recompute (each held for a
-- lease's time): entry and word 1. Its results come back through queens_commit.
CREATE OR REPLACE FUNCTION queens_lease_checks(p_n integer, p_who text, p_ttl float8, p_max integer)
RETURNS TABLE (o_entry bigint, o_w1 bigint)
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = @schema@, pg_temp AS $$
DECLARE
    bs integer;
    until_ timestamptz := now() + queens_ttl(p_ttl);
BEGIN
    PERFORM queens_admit(p_n);
    SELECT c.block_size INTO bs FROM queens_campaign c WHERE c.n = p_n;
    -- Word 1 as recorded with the check (read from the block's entries, decompressed once
    -- per block, only for checks an older build recorded without it).
    RETURN QUERY
    WITH pick AS (
        SELECT c.entry FROM queens_check c
        WHERE c.n = p_n AND c.state IN ('open', 'disputed') AND c.giver <> session_user
          AND c.second IS DISTINCT FROM session_user AND (c.until IS NULL OR c.until < now())
        ORDER BY c.entry LIMIT greatest(p_max, 0)
        FOR UPDATE SKIP LOCKED),
    taken AS MATERIALIZED (
        UPDATE queens_check c SET checker = session_user, holder = p_who, until = until_
        FROM pick WHERE c.n = p_n AND c.entry = pick.entry
        RETURNING c.entry, c.w1),
    blocks AS MATERIALIZED (
        SELECT k.block, k.first, k.entries || ''::bytea AS ents FROM queens_block k
        WHERE k.n = p_n
          AND k.block IN (SELECT DISTINCT (t.entry / bs)::integer FROM taken t WHERE t.w1 IS NULL))
    SELECT t.entry, coalesce(t.w1, queens_word(bk.ents, (t.entry - bk.first)::integer, 0))
    FROM taken t LEFT JOIN blocks bk ON t.w1 IS NULL AND bk.block = (t.entry / bs)::integer;
END
$$;
