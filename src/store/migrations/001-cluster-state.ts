// Migration 1: nodes (one row each, with a version), their GPUs, slots (one row each), the usage
// view, and the trigger that refuses any slot that would put a GPU over its total.
import type { Migration } from './types.js';

export const migration: Migration = {
  version: 1,
  name: 'nodes, gpus, slots, gpu_usage, slots_within_total',
  sql: (s) => `
CREATE TABLE ${s}.nodes (
  id text PRIMARY KEY,
  position integer NOT NULL UNIQUE,
  topology jsonb,
  version bigint NOT NULL DEFAULT 1 CHECK (version >= 1)
);
CREATE TABLE ${s}.gpus (
  node text NOT NULL REFERENCES ${s}.nodes (id) ON DELETE CASCADE,
  index integer NOT NULL CHECK (index >= 0),
  position integer NOT NULL,
  memory_total bigint NOT NULL CHECK (memory_total > 0),
  memory_used bigint NOT NULL DEFAULT 0 CHECK (memory_used >= 0 AND memory_used <= memory_total),
  PRIMARY KEY (node, index)
);
CREATE SEQUENCE ${s}.slot_order;
CREATE SEQUENCE ${s}.slot_id;
CREATE TABLE ${s}.slots (
  id text PRIMARY KEY,
  node text NOT NULL REFERENCES ${s}.nodes (id) ON DELETE CASCADE,
  added bigint NOT NULL DEFAULT nextval('${s}.slot_order'),
  gpus integer[] NOT NULL CHECK (cardinality(gpus) >= 1),
  memory_per_gpu bigint NOT NULL CHECK (memory_per_gpu > 0),
  model text,
  last_activity double precision,
  stale boolean
);
CREATE INDEX slots_node ON ${s}.slots (node, added);
CREATE VIEW ${s}.gpu_usage AS
  SELECT g.node, g.index, g.memory_total, g.memory_used,
         g.memory_used + coalesce(sum(sl.memory_per_gpu), 0)::bigint AS allocated
  FROM ${s}.gpus g LEFT JOIN ${s}.slots sl ON sl.node = g.node AND g.index = ANY (sl.gpus)
  GROUP BY g.node, g.index;
-- The database's own guard, whoever writes: a slot names GPUs of its node, each once, and no GPU
-- holds more than its total. It locks the node row first, so concurrent writers are checked in turn.
CREATE FUNCTION ${s}.check_slot() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  over record;
BEGIN
  PERFORM 1 FROM ${s}.nodes WHERE id = NEW.node FOR NO KEY UPDATE;
  IF (SELECT count(DISTINCT x) FROM unnest(NEW.gpus) x) <> cardinality(NEW.gpus)
     OR (SELECT count(*) FROM ${s}.gpus WHERE node = NEW.node AND index = ANY (NEW.gpus)) <> cardinality(NEW.gpus) THEN
    RAISE EXCEPTION 'gpualloc: slot % names GPUs % that are not each once on node %', NEW.id, NEW.gpus, NEW.node USING ERRCODE = 'check_violation';
  END IF;
  SELECT u.index, u.allocated, u.memory_total INTO over FROM ${s}.gpu_usage u
    WHERE u.node = NEW.node AND u.index = ANY (NEW.gpus) AND u.allocated > u.memory_total LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'gpualloc: slot % would put % bytes on GPU % of node %, which has %', NEW.id, over.allocated, over.index, NEW.node, over.memory_total USING ERRCODE = 'check_violation';
  END IF;
  RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER slots_within_total AFTER INSERT OR UPDATE OF gpus, memory_per_gpu, node ON ${s}.slots
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ${s}.check_slot();
`,
};
