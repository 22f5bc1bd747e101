-- Migration 1: the campaign tables as they were before roles: campaigns, their blocks of
-- entries, solver ids, history events and disputes.
-- (Written to run again on the tables it makes, IF NOT EXISTS: a database from before
-- numbered migrations has them without a record of it, and is brought up by running every
-- migration from the first.)

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
