// Symbol.dispose and Symbol.asyncDispose, the keys `using` and `await using` call (explicit resource
// management). Node ≥ 20 defines them as Symbol.for('nodejs.dispose') and
// Symbol.for('nodejs.asyncDispose'), and TypeScript's lib and @types/node type them; a runtime that
// lacks them (an older browser) gets the same two symbols here, so that a class's dispose method and
// TypeScript's compiled `using` meet on one key.
const S = Symbol as unknown as { dispose?: symbol; asyncDispose?: symbol };
if (S.dispose === undefined) Object.defineProperty(Symbol, 'dispose', { value: Symbol.for('nodejs.dispose') });
if (S.asyncDispose === undefined) Object.defineProperty(Symbol, 'asyncDispose', { value: Symbol.for('nodejs.asyncDispose') });

/** Symbol.dispose (defined where the runtime lacks it): the key of a sync `close()` for `using`. */
export const DISPOSE: typeof Symbol.dispose = Symbol.dispose;

/** Symbol.asyncDispose (defined where the runtime lacks it): the key of an async `close()` for `await using`. */
export const ASYNC_DISPOSE: typeof Symbol.asyncDispose = Symbol.asyncDispose;
