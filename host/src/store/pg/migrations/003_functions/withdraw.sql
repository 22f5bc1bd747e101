-- Migration 3, withdrawals and quarantines (see basics.sql).

-- Zeroes every count of solvers `ids` in the campaign (blocks locked in order); the totals
-- lose them, their checks are void. A block this makes unsolved again is let go by whoever
-- leases it, except by holder `p_keep` of this role (the withdrawing host, which queues the
-- entries itself): a holder queued a block's unsolved entries when it leased it, not these,
-- and would otherwise keep the block to the end. Returns the entries, with word 1 and the
-- solver.
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
    solved_change bigint[] := '{0,0,0}';  -- the campaign's totals per class, as they change
    sums_change bigint[] := '{0,0,0}';
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
        WHERE queens_solver_of(queens_word(ents, i, 1)) = ANY (ids);
        CONTINUE WHEN hits IS NULL;
        FOREACH j IN ARRAY hits LOOP
            w1 := queens_word(ents, j, 0);
            slot := queens_slot(w1);
            solved_change[slot] := solved_change[slot] - 1;
            sums_change[slot] := sums_change[slot] - queens_whole(queens_word(ents, j, 1));
            o_entry := b.first + j;
            o_w1 := w1;
            o_solver := queens_solver_of(queens_word(ents, j, 1));
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
    PERFORM queens_add_totals(p_n, solved_change, sums_change);
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
