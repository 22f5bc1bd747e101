-- The campaign tables, and what an older version's tables lack (added in place).
CREATE TABLE IF NOT EXISTS queens_campaign (
    n           integer  PRIMARY KEY,
    subproblems bigint   NOT NULL,
    block_size  integer  NOT NULL,
    census      bigint[] NOT NULL,  -- entries per class (none, point, rotate)
    solved      bigint[] NOT NULL,  -- solved entries per class
    solutions   bigint[] NOT NULL,  -- summed counts per class
    created     timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS queens_block (
    n           integer NOT NULL REFERENCES queens_campaign ON DELETE CASCADE,
    block       integer NOT NULL,
    first       bigint  NOT NULL,   -- index of its first entry
    len         integer NOT NULL,
    solved      integer NOT NULL,
    entries     bytea   NOT NULL,   -- len 16-byte entries
    cycles      bytea,              -- len little-endian u64 (0 = unknown), once one is known
    lease       bigint,
    holder      text,
    lease_until timestamptz,
    PRIMARY KEY (n, block)
);
CREATE INDEX IF NOT EXISTS queens_block_open ON queens_block (n, block) WHERE solved < len;
-- lz4 compresses blocks about four times as fast as the default pglz: a new campaign of
-- N = 22 is written in 20.5 s against 79 s (N = 27: about 4 minutes against 14), for 15%
-- more disk. A server built without lz4 (or older than PostgreSQL 14) keeps pglz.
DO $$
BEGIN
    ALTER TABLE queens_block ALTER COLUMN entries SET COMPRESSION lz4;
    ALTER TABLE queens_block ALTER COLUMN cycles SET COMPRESSION lz4;
EXCEPTION WHEN OTHERS THEN
    NULL;
END
$$;
CREATE SEQUENCE IF NOT EXISTS queens_lease;
CREATE TABLE IF NOT EXISTS queens_solver (
    n    integer NOT NULL REFERENCES queens_campaign ON DELETE CASCADE,
    id   integer NOT NULL,
    link text    NOT NULL,
    PRIMARY KEY (n, id),
    UNIQUE (n, link)
);
CREATE TABLE IF NOT EXISTS queens_event (
    n     integer NOT NULL REFERENCES queens_campaign ON DELETE CASCADE,
    t     timestamptz NOT NULL DEFAULT now(),
    host  text  NOT NULL,
    event jsonb NOT NULL
);
CREATE TABLE IF NOT EXISTS queens_dispute (
    n      integer NOT NULL REFERENCES queens_campaign ON DELETE CASCADE,
    entry  bigint  NOT NULL,
    kept   bigint  NOT NULL,        -- word 2 stored first
    other  bigint  NOT NULL,        -- word 2 of the differing result
    host   text    NOT NULL,
    t      timestamptz NOT NULL DEFAULT now()
);
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
