// The shape of one schema change (its own module, so the numbered migrations and the list that
// imports them do not import each other).

/** One schema change: its number, a one-line name, and its SQL for a (quoted) schema name. */
export type Migration = { version: number; name: string; sql: (schema: string) => string };
