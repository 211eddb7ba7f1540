// Migration 5: models across nodes. Nodes gain their labels (what a plan's topology constraint
// names). A slot across several nodes is one row per part, each on its node (so the GPU totals'
// trigger checks every part where it sits): `part` numbers them (0 for a slot on one node) and
// `parts` lists them all on every row. A slot's ID is unique through its part 0.
import type { Migration } from './types.js';

export const migration: Migration = {
  version: 5,
  name: 'multi-node: node labels; slot parts (one row per node of a slot across nodes)',
  sql: (s) => `
ALTER TABLE ${s}.nodes ADD COLUMN labels jsonb CONSTRAINT nodes_labels_check CHECK (labels IS NULL OR jsonb_typeof(labels) = 'object');
ALTER TABLE ${s}.slots
  ADD COLUMN part integer NOT NULL DEFAULT 0,
  ADD COLUMN parts jsonb,
  ADD CONSTRAINT slots_parts_check CHECK ((parts IS NULL AND part = 0) OR (jsonb_typeof(parts) = 'array' AND part >= 0 AND part < jsonb_array_length(parts)));
ALTER TABLE ${s}.slots DROP CONSTRAINT slots_pkey, ADD CONSTRAINT slots_pkey PRIMARY KEY (id, part);
ALTER TABLE ${s}.slots ADD CONSTRAINT slots_one_row_per_node UNIQUE (id, node);
`,
};
