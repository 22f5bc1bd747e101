-- Migration 3, a host's leases and solver ids (see basics.sql).

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
                   WHERE s.n = p_n AND s.id = queens_solver_of(w) AND s.role = who)
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
