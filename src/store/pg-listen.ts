// A PostgresStore's change listener: LISTEN on the schema's channel through a connection of its own,
// and, when that connection is lost (a server restart, a network cut), connect and LISTEN again with
// backoff for as long as the listener runs. Notifications sent while it was away are lost, so after
// each resubscription the listener hears node '' ("anything may have changed: reload everything").
import type pg from 'pg';
import { pgModule } from './pg-module.js';
import type { StoreListener } from './types.js';

/** First and longest pause between two reconnects, in milliseconds (doubling, with jitter). */
const FIRST_PAUSE_MS = 50;
const LONGEST_PAUSE_MS = 5_000;

export type ListenOptions = {
  config: pg.ClientConfig;
  channel: string;
  listener: StoreListener;
  /** Makes the first connection (the store's retries around `open`); its failure is the caller's. */
  firstTry: (open: () => Promise<pg.Client>) => Promise<pg.Client>;
  /** Called after each resubscription, before the listener hears ''. */
  onResubscribe: () => void;
  /** Called once when stopped. */
  onStop: () => void;
};

/** Starts listening; resolves (once subscribed) to the function that stops it. */
export async function listen(o: ListenOptions): Promise<() => Promise<void>> {
  let stopped = false;
  let client: pg.Client | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let pause = FIRST_PAUSE_MS;
  const open = async (): Promise<pg.Client> => {
    const c = new (pgModule().Client)(o.config);
    c.on('error', () => undefined);
    try {
      await c.connect();
      await c.query(`LISTEN ${pgModule().escapeIdentifier(o.channel)}`);
    } catch (error) {
      await c.end().catch(() => undefined);
      throw error;
    }
    c.on('notification', (message) => {
      if (message.channel !== o.channel || message.payload === undefined) return;
      const space = message.payload.indexOf(' ');
      o.listener(message.payload.slice(space + 1), Number(message.payload.slice(0, space)));
    });
    c.once('end', () => {
      if (stopped || client !== c) return;
      client = undefined;
      again();
    });
    return c;
  };
  const again = (): void => {
    timer = setTimeout(
      () => {
        timer = undefined;
        if (stopped) return;
        open().then(
          async (c) => {
            if (stopped) return void (await c.end().catch(() => undefined));
            client = c;
            pause = FIRST_PAUSE_MS;
            o.onResubscribe();
            o.listener('', 0);
          },
          () => {
            pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
            again();
          },
        );
      },
      pause * (0.5 + Math.random()),
    );
  };
  client = await o.firstTry(open);
  return async () => {
    if (stopped) return;
    stopped = true;
    o.onStop();
    if (timer !== undefined) clearTimeout(timer);
    await client?.end().catch(() => undefined);
  };
}
