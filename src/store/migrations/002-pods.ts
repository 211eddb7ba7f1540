// Migration 2: pods in the store (issue 20). Nodes gain their allocatable CPU (milli-CPU), host
// memory (bytes) and GPU model; slots gain a GPU share (milli), CPU and host memory, and may hold no
// GPUs (a CPU-only pod: memory_per_gpu 0) when they hold CPU or host memory. A second deferred
// trigger keeps, per node, the slots' CPU and host memory within the node's wherever it is set.
import type { Migration } from './types.js';

export const migration: Migration = {
  version: 2,
  name: 'pods: node cpu, host_memory, gpu_model; slot milli, cpu, host_memory; slots_within_node',
  sql: (s) => `
ALTER TABLE ${s}.nodes
  ADD COLUMN cpu bigint CONSTRAINT nodes_cpu_check CHECK (cpu >= 0),
  ADD COLUMN host_memory bigint CONSTRAINT nodes_host_memory_check CHECK (host_memory >= 0),
  ADD COLUMN gpu_model text;
ALTER TABLE ${s}.slots
  ADD COLUMN milli integer CONSTRAINT slots_milli_check CHECK (milli BETWEEN 1 AND 1000),
  ADD COLUMN cpu bigint CONSTRAINT slots_cpu_check CHECK (cpu >= 0),
  ADD COLUMN host_memory bigint CONSTRAINT slots_host_memory_check CHECK (host_memory >= 0);
-- Migration 1's column checks (cardinality(gpus) >= 1, memory_per_gpu > 0) become one rule: a slot
-- holds GPUs and memory on each, or no GPUs, no GPU memory and no share but CPU or host memory.
ALTER TABLE ${s}.slots DROP CONSTRAINT slots_gpus_check, DROP CONSTRAINT slots_memory_per_gpu_check;
ALTER TABLE ${s}.slots ADD CONSTRAINT slots_holds_something CHECK (
  (cardinality(gpus) >= 1 AND memory_per_gpu > 0)
  OR (cardinality(gpus) = 0 AND memory_per_gpu = 0 AND milli IS NULL AND (cpu IS NOT NULL OR host_memory IS NOT NULL))
);
-- The database's own guard for a node's CPU and host memory, whoever writes: the sum over the node's
-- slots stays within the node's figure wherever that is set (NULL: not tracked). Like check_slot it
-- locks the node row first, so concurrent writers are checked in turn.
CREATE FUNCTION ${s}.check_node_resources() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  node_id text;
  n record;
  held record;
BEGIN
  IF TG_TABLE_NAME = 'nodes' THEN
    node_id := NEW.id;
  ELSE
    node_id := NEW.node;
  END IF;
  SELECT cpu, host_memory INTO n FROM ${s}.nodes WHERE id = node_id FOR NO KEY UPDATE;
  IF NOT FOUND OR (n.cpu IS NULL AND n.host_memory IS NULL) THEN
    RETURN NULL;
  END IF;
  SELECT coalesce(sum(sl.cpu), 0) AS cpu, coalesce(sum(sl.host_memory), 0) AS host_memory INTO held FROM ${s}.slots sl WHERE sl.node = node_id;
  IF n.cpu IS NOT NULL AND held.cpu > n.cpu THEN
    RAISE EXCEPTION 'gpualloc: the slots of node % would hold % milli-CPU, more than its % milli-CPU', node_id, held.cpu, n.cpu USING ERRCODE = 'check_violation';
  END IF;
  IF n.host_memory IS NOT NULL AND held.host_memory > n.host_memory THEN
    RAISE EXCEPTION 'gpualloc: the slots of node % would hold % bytes of host memory, more than its % bytes', node_id, held.host_memory, n.host_memory USING ERRCODE = 'check_violation';
  END IF;
  RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER slots_within_node AFTER INSERT OR UPDATE OF cpu, host_memory, node ON ${s}.slots
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ${s}.check_node_resources();
CREATE CONSTRAINT TRIGGER node_resources_within AFTER UPDATE OF cpu, host_memory ON ${s}.nodes
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ${s}.check_node_resources();
`,
};
