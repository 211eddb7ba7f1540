// A TCP proxy between writers and the PostgreSQL server (plain node:net) that reads the wire protocol
// in both directions and cuts connections at chosen points: before BEGIN reaches the server, after
// the server answered the statement that locks a node (the transaction holds the lock), before COMMIT
// reaches the server, and right after the server's reply to COMMIT is sent, before the client reads
// it (the server has committed; the client cannot know). It can also stall a connection at COMMIT
// (a writer that stops inside its transaction, holding its locks), refuse new connections, or take
// them and never answer (a host that went silent). It emits 'cut' with the point of each cut.
// A fault a real part cannot produce on demand, at an exact protocol point: hence a proxy, not a mock
// of the server (the server and the client are the real ones).
import { EventEmitter } from 'node:events';
import net from 'node:net';

/** Where a connection is cut. */
export type CutPoint = 'before-begin' | 'after-lock' | 'before-commit' | 'after-commit-reply' | 'stall-commit';
export const CUT_POINTS: readonly CutPoint[] = ['before-begin', 'after-lock', 'before-commit', 'after-commit-reply', 'stall-commit'];

const SSL_REQUEST = 80877103;
const CANCEL_REQUEST = 80877102;
const GSS_REQUEST = 80877104;

/** One proxied connection: the client's socket, the server's, what the client said it is, and what is pending. */
type Link = {
  client: net.Socket;
  server: net.Socket;
  appName: string;
  startup: boolean;
  passthrough: boolean;
  fromClient: Buffer;
  fromServer: Buffer;
  /** A cut waiting for the server's next message (after-lock, after-commit-reply). */
  pending?: CutPoint;
  stalled: boolean;
  closed: boolean;
  /** Called once when the link closes. */
  onClose?: () => void;
  /** Whether the server has sent its first ReadyForQuery (the connection is set up). */
  ready: boolean;
  /** Whether the connection is idle: the server's last message was ReadyForQuery and the client has sent nothing since. */
  idle: boolean;
};

/** A stalled connection: the writer's application_name, `ended` (settles once the link is closed: by the server, or end()), and end(). */
export type Stall = { appName: string; ended: Promise<void>; end(): void };

export class FaultProxy extends EventEmitter {
  /** The port it listens on (127.0.0.1). */
  port = 0;
  /** Cuts made, by point; `refused` counts connections refused; `dropped` links cut by dropAll. */
  readonly cuts: Record<CutPoint | 'refused' | 'dropped', number> = { 'before-begin': 0, 'after-lock': 0, 'before-commit': 0, 'after-commit-reply': 0, 'stall-commit': 0, refused: 0, dropped: 0 };
  private readonly armed = new Map<CutPoint, number>();
  private readonly links = new Set<Link>();
  private readonly server: net.Server;
  private refusing = false;
  private silence = false;
  private readonly held = new Set<net.Socket>();
  private fatalsArmed = 0;
  /** Connections ended by a dead postmaster's FATAL (armFatalAfterReady, fatalToIdle). */
  fatals = 0;

  private constructor(private readonly upstream: net.NetConnectOpts) {
    super();
    this.server = net.createServer((client) => this.accept(client));
  }

  /** Starts a proxy to `upstream` (a Unix socket path, or host and port). */
  static async start(upstream: { path: string } | { host: string; port: number }): Promise<FaultProxy> {
    const proxy = new FaultProxy(upstream);
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    proxy.port = (proxy.server.address() as net.AddressInfo).port;
    return proxy;
  }

  /** The next `count` connections that reach `point` are cut there (adds to what is armed). */
  arm(point: CutPoint, count = 1): void {
    this.armed.set(point, (this.armed.get(point) ?? 0) + count);
  }

  /** How many armed cuts of `point` have not happened yet. */
  pending(point: CutPoint): number {
    return this.armed.get(point) ?? 0;
  }

  /** Disarms every point. */
  disarm(): void {
    this.armed.clear();
    this.fatalsArmed = 0;
  }

  /**
   * The next `count` new connections get, in the same write as the server's first ReadyForQuery
   * (the connection is set up, no query in flight), the FATAL a backend sends when its postmaster
   * died: `terminating connection due to unexpected postmaster exit`, then the connection closes.
   * One read on the client's side holds both, so the driver meets the FATAL before any code that
   * awaited the connection has run: the moment of a real crash that lands just after a connect.
   */
  armFatalAfterReady(count = 1): void {
    this.fatalsArmed += count;
  }

  /** Refuses (closes at once) new connections while on, as a host that went away. */
  refuse(on: boolean): void {
    this.refusing = on;
  }

  /** Accepts new connections but never forwards or answers them while on (a server that hangs); off: closes the held ones. */
  silent(on: boolean): void {
    this.silence = on;
    if (!on) for (const socket of this.held) socket.destroy();
    if (!on) this.held.clear();
  }

  /** Cuts every open connection now (a network blip); returns how many. */
  dropAll(): number {
    let n = 0;
    for (const link of [...this.links]) {
      if (link.stalled) continue;
      this.cut(link);
      n++;
    }
    this.cuts.dropped += n;
    return n;
  }

  async close(): Promise<void> {
    for (const link of [...this.links]) this.cut(link);
    this.silent(false);
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private take(point: CutPoint): boolean {
    const left = this.armed.get(point) ?? 0;
    if (left <= 0) return false;
    this.armed.set(point, left - 1);
    this.cuts[point]++;
    this.emit('cut', point);
    return true;
  }

  private accept(client: net.Socket): void {
    if (this.refusing) {
      this.cuts.refused++;
      client.destroy();
      return;
    }
    if (this.silence) {
      client.on('error', () => undefined);
      this.held.add(client);
      return;
    }
    const server = net.connect(this.upstream);
    // No Nagle delay on the client side (the server's is a Unix socket or TCP without it too): the proxy adds no latency.
    client.setNoDelay(true);
    if ('port' in this.upstream) server.setNoDelay(true);
    const link: Link = {
      client,
      server,
      appName: '',
      startup: true,
      passthrough: false,
      fromClient: Buffer.alloc(0),
      fromServer: Buffer.alloc(0),
      stalled: false,
      closed: false,
      ready: false,
      idle: false,
    };
    this.links.add(link);
    client.on('data', (chunk) => this.clientData(link, chunk));
    server.on('data', (chunk) => this.serverData(link, chunk));
    const end = () => this.cut(link);
    client.on('close', end);
    server.on('close', end);
    client.on('error', end);
    server.on('error', end);
  }

  /** Closes both sides at once, forwarding nothing more. */
  private cut(link: Link): void {
    if (link.closed) return;
    link.closed = true;
    this.links.delete(link);
    link.client.destroy();
    link.server.destroy();
    link.onClose?.();
  }

  private clientData(link: Link, chunk: Buffer): void {
    if (link.closed) return;
    link.idle = false;
    if (link.passthrough) return void link.server.write(chunk);
    link.fromClient = Buffer.concat([link.fromClient, chunk]);
    // Whole messages are forwarded together, in one write per chunk read.
    const out: Buffer[] = [];
    this.readClient(link, out);
    if (out.length > 0 && !link.closed) link.server.write(Buffer.concat(out));
  }

  private readClient(link: Link, out: Buffer[]): void {
    for (;;) {
      const buf = link.fromClient;
      if (link.startup) {
        if (buf.length < 8) return;
        const length = buf.readInt32BE(0);
        if (buf.length < length) return;
        const code = buf.readInt32BE(4);
        const message = buf.subarray(0, length);
        link.fromClient = buf.subarray(length);
        if (code === SSL_REQUEST || code === CANCEL_REQUEST || code === GSS_REQUEST) {
          // TLS or a cancel: nothing to read in it; pass the rest through untouched.
          link.passthrough = true;
          out.push(message, link.fromClient);
          return;
        }
        const params = message.subarray(8).toString('utf8').split('\0');
        for (let k = 0; k + 1 < params.length; k += 2) if (params[k] === 'application_name') link.appName = params[k + 1];
        link.startup = false;
        out.push(message);
        continue;
      }
      if (buf.length < 5) return;
      const length = buf.readInt32BE(1);
      if (buf.length < length + 1) return;
      const type = String.fromCharCode(buf[0]);
      const message = buf.subarray(0, length + 1);
      link.fromClient = buf.subarray(length + 1);
      const text = type === 'Q' || type === 'P' ? message.subarray(5).toString('utf8') : '';
      const sql = type === 'Q' ? text.replace(/\0$/, '').trim().toUpperCase() : type === 'P' ? text.slice(text.indexOf('\0') + 1).toUpperCase() : '';
      if (sql === 'BEGIN' && this.take('before-begin')) return this.cut(link);
      if (sql === 'COMMIT') {
        if (this.take('before-commit')) return this.cut(link);
        if (this.take('stall-commit')) {
          // The COMMIT is never delivered and the client hears nothing: its transaction sits idle on
          // the server, holding its locks, until the server's idle-in-transaction timeout ends it.
          link.stalled = true;
          const ended = new Promise<void>((resolve) => (link.onClose = resolve));
          this.emit('stall', { appName: link.appName, ended, end: () => this.cut(link) } satisfies Stall);
          return;
        }
        if (this.take('after-commit-reply')) link.pending = 'after-commit-reply';
      } else if (sql.includes('FOR NO KEY UPDATE') && link.pending === undefined && this.take('after-lock')) link.pending = 'after-lock';
      out.push(message);
    }
  }

  private serverData(link: Link, chunk: Buffer): void {
    if (link.closed) return;
    if (link.passthrough) return void link.client.write(chunk);
    if (link.stalled) {
      // Whatever the server says now (its timeout ending the session) ends the stall.
      this.cut(link);
      return;
    }
    link.fromServer = Buffer.concat([link.fromServer, chunk]);
    const out: Buffer[] = [];
    this.readServer(link, out);
    if (out.length > 0 && !link.closed) link.client.write(Buffer.concat(out));
  }

  private readServer(link: Link, out: Buffer[]): void {
    for (;;) {
      const buf = link.fromServer;
      if (buf.length < 5) return;
      const length = buf.readInt32BE(1);
      if (buf.length < length + 1) return;
      const type = String.fromCharCode(buf[0]);
      const message = buf.subarray(0, length + 1);
      link.fromServer = buf.subarray(length + 1);
      // after-commit-reply: the server's first answer to COMMIT (CommandComplete "COMMIT") is sent;
      // drop it and cut, so the client never reads it. after-lock: cut at the end of the answer to
      // the locking statement (ReadyForQuery), while the transaction holds the node.
      if (link.pending === 'after-commit-reply') return this.cut(link);
      if (link.pending === 'after-lock' && type === 'Z') return this.cut(link);
      if (type === 'Z' && !link.ready) {
        link.ready = true;
        if (this.fatalsArmed > 0) {
          this.fatalsArmed--;
          this.endWithFatal(link, [...out.splice(0), message]);
          return;
        }
      }
      // A notification, notice or parameter report leaves an idle connection idle.
      if (type !== 'A' && type !== 'N' && type !== 'S') link.idle = type === 'Z';
      out.push(message);
    }
  }

  /** Ends `link` as a backend whose postmaster died: the FATAL (after `before`), then the close. */
  private endWithFatal(link: Link, before: Buffer[]): void {
    this.fatals++;
    link.closed = true;
    this.links.delete(link);
    link.server.destroy();
    link.client.end(Buffer.concat([...before, postmasterExit()]));
    link.onClose?.();
  }

  /** Sends every idle connection (set up, no statement in flight) the FATAL of a dead postmaster and closes it; returns how many. */
  fatalToIdle(): number {
    let n = 0;
    for (const link of [...this.links]) {
      if (!link.ready || !link.idle || link.stalled || link.passthrough) continue;
      this.endWithFatal(link, []);
      n++;
    }
    return n;
  }
}

/** The ErrorResponse a backend sends when it finds its postmaster gone (FATAL, SQLSTATE 57P01). */
function postmasterExit(): Buffer {
  const field = (code: string, value: string) => Buffer.concat([Buffer.from(code, 'ascii'), Buffer.from(`${value}\0`, 'utf8')]);
  const body = Buffer.concat([field('S', 'FATAL'), field('V', 'FATAL'), field('C', '57P01'), field('M', 'terminating connection due to unexpected postmaster exit'), Buffer.from([0])]);
  const head = Buffer.alloc(5);
  head.write('E', 0, 'ascii');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}
