-- Migration 3, the steps of a block's merge (see basics.sql), in the order `queens_commit`
-- takes them for each block it touches: read it, land the results it may fill in, put some
-- of them up for checking, compare the others, apply corrections, write it back.

-- A block's entries and cycle counts, decompressed once (every entry read from them is then
-- a slice of plain bytes), and whether its unsolved entries are this commit's to fill: this
-- role leases the block under one of `p_leases`, or as holder `p_who` under a newer lease (a
-- host whose lease lapsed while a commit was on its way leases the block again, and that
-- commit still names the old id), or no one holds a live lease. With `p_lock` the row stays
-- locked to the end of the commit; without, it is read as it stands, only to be compared
-- with (no cycle counts, nobody's to fill).
CREATE OR REPLACE FUNCTION queens_block_read(
    p_n integer, p_block integer, p_lock boolean, p_who text, p_leases bigint[],
    OUT o_entries bytea, OUT o_cycles bytea, OUT o_ours boolean)
LANGUAGE plpgsql
SET search_path = @schema@, pg_temp AS $$
BEGIN
    IF p_lock THEN
        SELECT k.entries || ''::bytea, k.cycles || ''::bytea,
               (k.role = session_user AND (k.lease = ANY (coalesce(p_leases, '{}')) OR k.holder = p_who))
               OR k.lease_until IS NULL OR k.lease_until < now()
        INTO o_entries, o_cycles, o_ours
        FROM queens_block k WHERE k.n = p_n AND k.block = p_block
        FOR UPDATE;
    ELSE
        SELECT k.entries || ''::bytea INTO o_entries
        FROM queens_block k WHERE k.n = p_n AND k.block = p_block;
        o_cycles := NULL;
        o_ours := false;
    END IF;
END
$$;

-- Lands results (`r_entry`, `r_word`, `r_cycles`: those of the block at `p_first`, `p_len`
-- entries long) in a block this commit may fill: the first result for each entry unsolved in
-- `p_entries`. The new bytes of the entries from the first to the last that land are built
-- in one pass (each piece: the entries between, word 1, the new word 2; the cycle counts
-- likewise) and put in place at once, so that a commit costs what its results do, not what
-- the block does. Returns how many landed, the block's new entries and cycle counts (NULL:
-- unchanged), what the landed counts add to the totals per class, and those chosen for
-- another role to recompute: every one when `p_check_all` (the role's first block), else
-- each with the probability `p_share`.
CREATE OR REPLACE FUNCTION queens_land(
    p_block integer, p_first bigint, p_len integer, p_entries bytea, p_cycles bytea,
    r_entry bigint[], r_word bigint[], r_cycles bytea[], p_check_all boolean, p_share float8,
    OUT o_landed bigint, OUT o_entries bytea, OUT o_cycles bytea,
    OUT o_solved bigint[], OUT o_sums bigint[],
    OUT o_check_offs integer[], OUT o_check_words bigint[])
LANGUAGE plpgsql
SET search_path = @schema@, pg_temp AS $$
DECLARE
    first_off integer;    -- the first entry that lands, as an offset in the block
    span bytea;           -- the new bytes from its word 1 to the last word 2 that lands
    cycle_span bytea;     -- the cycle counts of the same entries
    with_cycles boolean;  -- whether a result that lands brought a cycle count
    classless bigint;     -- entries that would land without a symmetry class: damage
    words1 varbit;        -- a mask of the words 1 in the span
BEGIN
    -- (One sort, DISTINCT ON's: the window and the aggregates take its order, which is
    -- checked below rather than assumed.)
    SELECT count(*), min(g.off),
           string_agg(substring(p_entries FROM g.prev * 16 + 17 FOR (g.off - g.prev - 1) * 16 + 8)
                      || int8send(g.w), ''::bytea),
           string_agg(CASE WHEN p_cycles IS NULL THEN decode(repeat('00', (g.off - g.prev - 1) * 8), 'hex')
                           ELSE substring(p_cycles FROM g.prev * 8 + 9 FOR (g.off - g.prev - 1) * 8) END
                      || coalesce(g.c, substring(p_cycles FROM g.off * 8 + 1 FOR 8),
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
    INTO o_landed, first_off, span, cycle_span, with_cycles, o_solved, o_sums, classless,
         o_check_offs, o_check_words
    FROM (SELECT f.off, f.w, f.c, coalesce(lag(f.off) OVER (ORDER BY f.e), f.off - 1) AS prev,
                 -- the class bits of word 1 ((w1 >> 23) & 3: 3 none, 2 point, 1 rotate)
                 ((get_byte(p_entries, f.off * 16 + 4) & 1) << 1)
                 | (get_byte(p_entries, f.off * 16 + 5) >> 7) AS cls,
                 (p_check_all OR random() < p_share) AS pick
          FROM (SELECT DISTINCT ON (v.e) v.e, (v.e - p_first)::integer AS off, v.w, v.c
                FROM unnest(r_entry, r_word, r_cycles) WITH ORDINALITY AS v(e, w, c, i)
                WHERE v.e >= p_first AND v.e < p_first + p_len
                ORDER BY v.e, v.i) f
          WHERE substring(p_entries FROM f.off * 16 + 9 FOR 8) = '\x0000000000000000'::bytea
          ORDER BY f.e) g;
    IF classless > 0 THEN
        RAISE EXCEPTION 'an entry of block % has no symmetry class: the block is damaged', p_block
            USING ERRCODE = 'data_corrupted';
    END IF;
    o_entries := p_entries;
    IF o_landed = 0 THEN
        RETURN;
    END IF;
    o_entries := overlay(p_entries PLACING span FROM first_off * 16 + 1);
    -- Word 1 of every entry as it was (all differ), so the pieces were joined in entry order,
    -- the cycles' with them: a bitwise comparison of the span.
    words1 := ('x' || repeat('ffffffffffffffff0000000000000000', length(span) / 16))::varbit;
    IF ('x' || encode(span, 'hex'))::varbit & words1
       <> ('x' || encode(substring(p_entries FROM first_off * 16 + 1 FOR length(span)), 'hex'))::varbit
          & words1 THEN
        RAISE EXCEPTION 'the merge of block % put an entry out of place', p_block
            USING ERRCODE = 'internal_error';
    END IF;
    IF with_cycles THEN
        o_cycles := overlay(coalesce(p_cycles, decode(repeat('00', p_len * 8), 'hex'))
                            PLACING cycle_span FROM first_off * 8 + 1);
    END IF;
END
$$;

-- Puts counts that landed in the block at `p_first` (at offsets `p_offs`, words 2 `p_words`)
-- up for another role to recompute: a row of queens_check each, with word 1, so that the
-- host taking it need not read the block.
CREATE OR REPLACE FUNCTION queens_check_later(
    p_n integer, p_first bigint, p_entries bytea, p_offs integer[], p_words bigint[])
RETURNS void
LANGUAGE sql
SET search_path = @schema@, pg_temp AS $$
    INSERT INTO queens_check AS c (n, entry, giver, word, w1)
    SELECT p_n, p_first + t.o, session_user, t.w, queens_word(p_entries, t.o, 0)
    FROM unnest(p_offs, p_words) AS t(o, w)
    ON CONFLICT (n, entry) DO UPDATE
    SET giver = session_user, word = excluded.word, w1 = excluded.w1, state = 'open', second = NULL,
        second_word = NULL, confirmer = NULL, checker = NULL, holder = NULL, until = NULL, t = now()
$$;

-- Compares the results of the block at `p_first` that did not land (recomputations of
-- chosen counts, repeats, results for entries solved meanwhile or in a block that is not
-- this commit's to fill) with what is stored (`p_entries`, what landed included; `p_before`,
-- as it was read), never counting them. One statement gathers them; recomputations vote
-- (queens_vote); an agreeing count is agreed, a different one a recorded dispute, one for an
-- entry unsolved here refused. Returns how many were refused, agreed and disputed, and the
-- roles outvoted, with why.
CREATE OR REPLACE FUNCTION queens_compare(
    p_n integer, p_who text, p_first bigint, p_len integer, p_entries bytea, p_before bytea,
    p_ours boolean, r_entry bigint[], r_word bigint[],
    OUT o_refused bigint, OUT o_agreed bigint, OUT o_disputed bigint,
    OUT o_outvoted text[], OUT o_reasons text[])
LANGUAGE plpgsql
SET search_path = @schema@, pg_temp AS $$
DECLARE
    their_entries bigint[];  -- the results compared, in the order sent
    their_words bigint[];
    stored_words bigint[];   -- word 2 stored for each (0: unsolved)
BEGIN
    SELECT coalesce(array_agg(v.e ORDER BY v.i), '{}'), coalesce(array_agg(v.w ORDER BY v.i), '{}'),
           coalesce(array_agg(queens_word(p_entries, v.off, 1) ORDER BY v.i), '{}')
    INTO their_entries, their_words, stored_words
    FROM (SELECT u.e, (u.e - p_first)::integer AS off, u.w, u.i,
                 row_number() OVER (PARTITION BY u.e ORDER BY u.i) AS nth
          FROM unnest(r_entry, r_word) WITH ORDINALITY AS u(e, w, i)
          WHERE u.e >= p_first AND u.e < p_first + p_len) v
    WHERE NOT p_ours OR v.nth > 1
       OR substring(p_before FROM v.off * 16 + 9 FOR 8) <> '\x0000000000000000'::bytea;
    SELECT * INTO o_outvoted, o_reasons
    FROM queens_vote(p_n, their_entries, their_words, stored_words);
    SELECT count(*) FILTER (WHERE t.s = 0),
           count(*) FILTER (WHERE t.s <> 0 AND queens_whole(t.s) = queens_whole(t.w)),
           count(*) FILTER (WHERE t.s <> 0 AND queens_whole(t.s) <> queens_whole(t.w))
    INTO o_refused, o_agreed, o_disputed
    FROM unnest(stored_words, their_words) AS t(s, w);
    IF o_disputed > 0 THEN
        INSERT INTO queens_dispute (n, entry, kept, other, host, role)
        SELECT p_n, t.e, t.s, t.w, p_who, session_user
        FROM unnest(their_entries, their_words, stored_words) WITH ORDINALITY AS t(e, w, s, i)
        WHERE t.s <> 0 AND queens_whole(t.s) <> queens_whole(t.w)
        ORDER BY t.i;
    END IF;
END
$$;

-- The votes of results compared (`p_entries`, words 2 `p_words`, the stored `p_stored`) that
-- recompute a count chosen for checking, by a role it is not yet from (its first one for the
-- entry here): agreement confirms the count; the first disagreement asks a third role, whose
-- count outvotes one of the two (settled; neither of the three: unsettled). Returns the roles
-- outvoted, with why.
CREATE OR REPLACE FUNCTION queens_vote(
    p_n integer, p_entries bigint[], p_words bigint[], p_stored bigint[],
    OUT o_outvoted text[], OUT o_reasons text[])
LANGUAGE plpgsql
SET search_path = @schema@, pg_temp AS $$
BEGIN
    -- (Planned at each call, knowing how many results it has: a plan cached while the
    -- campaign had few checks pending could walk them all for every result.)
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
    $q$ INTO o_outvoted, o_reasons USING p_n, p_entries, p_words, p_stored, session_user;
END
$$;

-- Applies the corrections of the block at `p_first` (`c_entry`, words 2 `c_word`; 0
-- withdraws a count), in the order sent, to `p_entries` as they stand. A correction applies
-- only to a count of this role's solvers, or to an unsolved entry of a block this commit may
-- fill (`p_ours`), and names no count for an entry whose check is disputed: any other is
-- refused, and recorded as a dispute unless it withdraws. A count of its own it replaced is
-- checked anew; one withdrawn is not. Returns the new entries and whether they changed, what
-- the changes add to the totals per class and to the block's solved entries, whether an
-- entry is unsolved again, and how many were refused and disputed.
CREATE OR REPLACE FUNCTION queens_correct(
    p_n integer, p_who text, p_first bigint, p_len integer, p_entries bytea, p_ours boolean,
    c_entry bigint[], c_word bigint[],
    OUT o_entries bytea, OUT o_changed boolean, OUT o_solved bigint[], OUT o_sums bigint[],
    OUT o_solved_entries integer, OUT o_reopened boolean, OUT o_refused bigint, OUT o_disputed bigint)
LANGUAGE plpgsql
SET search_path = @schema@, pg_temp AS $$
DECLARE
    fix record;          -- a correction: the entry's offset in the block, its new word 2
    stored bigint;       -- the word 2 it replaces
    slot integer;        -- the entry's class
    new_words bigint[];  -- the new word 2 of each entry corrected (at offset + 1), else NULL
BEGIN
    o_solved := '{0,0,0}';
    o_sums := '{0,0,0}';
    o_solved_entries := 0;
    o_reopened := false;
    o_refused := 0;
    o_disputed := 0;
    FOR fix IN
        SELECT (u.e - p_first)::integer AS off, u.w
        FROM unnest(c_entry, c_word) WITH ORDINALITY AS u(e, w, i)
        WHERE u.e >= p_first AND u.e < p_first + p_len
        ORDER BY u.i
    LOOP
        stored := coalesce(new_words[fix.off + 1], queens_word(p_entries, fix.off, 1));
        CONTINUE WHEN stored = fix.w;
        IF (stored = 0 AND NOT p_ours) OR (stored <> 0 AND NOT queens_owns(p_n, stored, session_user))
           OR (fix.w <> 0 AND EXISTS (SELECT 1 FROM queens_check c WHERE c.n = p_n
                                      AND c.entry = p_first + fix.off AND c.state = 'disputed')) THEN
            IF fix.w <> 0 THEN
                o_disputed := o_disputed + 1;
                INSERT INTO queens_dispute (n, entry, kept, other, host, role)
                VALUES (p_n, p_first + fix.off, stored, fix.w, p_who, session_user);
            END IF;
            o_refused := o_refused + 1;
            CONTINUE;
        END IF;
        slot := queens_slot(queens_word(p_entries, fix.off, 0));
        IF slot IS NULL THEN
            RAISE EXCEPTION 'entry % has no symmetry class: the block is damaged', p_first + fix.off
                USING ERRCODE = 'data_corrupted';
        END IF;
        IF stored <> 0 THEN
            o_sums[slot] := o_sums[slot] - queens_whole(stored);
            IF fix.w = 0 THEN
                o_solved[slot] := o_solved[slot] - 1;
                o_solved_entries := o_solved_entries - 1;
                o_reopened := true;
            END IF;
        ELSE
            o_solved[slot] := o_solved[slot] + 1;
            o_solved_entries := o_solved_entries + 1;
        END IF;
        IF fix.w <> 0 THEN
            o_sums[slot] := o_sums[slot] + queens_whole(fix.w);
        END IF;
        IF new_words IS NULL THEN
            new_words := array_fill(NULL::bigint, ARRAY[p_len]);
        END IF;
        new_words[fix.off + 1] := fix.w;
        UPDATE queens_check c
        SET state = CASE WHEN fix.w = 0 THEN 'void' ELSE 'open' END,
            word = CASE WHEN fix.w = 0 THEN c.word ELSE fix.w END,
            second = NULL, second_word = NULL, confirmer = NULL
        WHERE c.n = p_n AND c.entry = p_first + fix.off AND c.giver = session_user AND c.state <> 'void';
    END LOOP;
    o_changed := new_words IS NOT NULL;
    o_entries := p_entries;
    IF o_changed THEN
        o_entries := queens_patch(p_entries, 16, 8,
            ARRAY(SELECT t.i::integer - 1 FROM unnest(new_words) WITH ORDINALITY AS t(w, i)
                  WHERE t.w IS NOT NULL ORDER BY t.i),
            ARRAY(SELECT int8send(t.w) FROM unnest(new_words) WITH ORDINALITY AS t(w, i)
                  WHERE t.w IS NOT NULL ORDER BY t.i));
    END IF;
END
$$;

-- Writes a block's merged entries (and its cycle counts, unless `p_cycles` is NULL) and the
-- change in its solved entries. A block this completes is let go; so is one whose entries a
-- retraction made unsolved again while another holder leases it: that holder queued its
-- unsolved entries when it leased it, not these (its next commit finds the lease gone).
CREATE OR REPLACE FUNCTION queens_block_write(
    p_n integer, p_block integer, p_who text, p_entries bytea, p_cycles bytea,
    p_solved_change integer, p_reopened boolean)
RETURNS void
LANGUAGE plpgsql
SET search_path = @schema@, pg_temp AS $$
DECLARE
    let_go boolean;  -- the lease on the block ends
BEGIN
    SELECT k.solved + p_solved_change = k.len OR (p_reopened AND k.holder IS DISTINCT FROM p_who)
    INTO let_go
    FROM queens_block k WHERE k.n = p_n AND k.block = p_block;
    UPDATE queens_block k
    SET entries = p_entries,
        cycles = coalesce(p_cycles, k.cycles),
        solved = k.solved + p_solved_change,
        lease = CASE WHEN let_go THEN NULL ELSE k.lease END,
        holder = CASE WHEN let_go THEN NULL ELSE k.holder END,
        role = CASE WHEN let_go THEN NULL ELSE k.role END,
        lease_until = CASE WHEN let_go THEN NULL ELSE k.lease_until END
    WHERE k.n = p_n AND k.block = p_block;
END
$$;
