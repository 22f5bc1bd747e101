-- Migration 2: what roles added (queens db init): the role behind each lease, solver id,
-- event and dispute; withdrawals; settings; cross-host agreement; each host role's standing.
-- (Re-runnable like migration 1, for the same reason. The functions of that version are
-- not kept: migration 3 makes today's.)

-- The database role behind each lease, solver id, event and dispute (NULL: made by a version
-- that did not record it).
ALTER TABLE queens_block   ADD COLUMN IF NOT EXISTS role text;
ALTER TABLE queens_solver  ADD COLUMN IF NOT EXISTS role text;
ALTER TABLE queens_event   ADD COLUMN IF NOT EXISTS role text;
ALTER TABLE queens_dispute ADD COLUMN IF NOT EXISTS role text;
-- Every withdrawal of a solver's counts, in every session.
CREATE TABLE IF NOT EXISTS queens_withdrawal (
    n       integer NOT NULL REFERENCES queens_campaign ON DELETE CASCADE,
    solver  integer NOT NULL,
    role    text    NOT NULL,
    host    text    NOT NULL,
    entries bigint  NOT NULL,       -- counts withdrawn by this call
    reason  text    NOT NULL,
    t       timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS queens_meta (
    key   text PRIMARY KEY,
    value text NOT NULL
);
-- Cross-host agreement: counts chosen to be recomputed by another host (all of a role's
-- first block, then a random share). A second role's agreeing count confirms one; a
-- disagreement waits for a third role, whose count outvotes one of the two.
CREATE TABLE IF NOT EXISTS queens_check (
    n           integer NOT NULL REFERENCES queens_campaign ON DELETE CASCADE,
    entry       bigint  NOT NULL,
    giver       text    NOT NULL,   -- the role whose count it is
    word        bigint  NOT NULL,   -- its word 2
    state       text    NOT NULL DEFAULT 'open',  -- open disputed agreed settled unsettled void
    second      text,               -- the role that disagreed, and its word 2
    second_word bigint,
    confirmer   text,               -- the role whose count agreed (or decided)
    checker     text,               -- the role recomputing it now, for how long
    holder      text,
    until       timestamptz,
    t           timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (n, entry)
);
-- Word 1 of the entry, so that a host taking it to check need not read the block (NULL in
-- checks an older build recorded).
ALTER TABLE queens_check ADD COLUMN IF NOT EXISTS w1 bigint;
CREATE INDEX IF NOT EXISTS queens_check_pending ON queens_check (n, entry)
    WHERE state IN ('open', 'disputed');
-- Each host role's standing in a campaign: when it was last heard, its first block, the
-- counts it gave, and its quarantine.
CREATE TABLE IF NOT EXISTS queens_host (
    n           integer NOT NULL REFERENCES queens_campaign ON DELETE CASCADE,
    role        text    NOT NULL,
    first_block integer,
    given       bigint  NOT NULL DEFAULT 0,
    seen        timestamptz NOT NULL DEFAULT now(),
    quarantined timestamptz,
    reason      text,
    PRIMARY KEY (n, role)
);
