// The shape of one migration, apart from the list, so that each numbered file can name it.

/** One schema change: its number, a one-line name, and its SQL for a (quoted) schema name. */
export type Migration = { version: number; name: string; sql: (schema: string) => string };
