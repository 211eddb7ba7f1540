// Cross-process exclusion and crash-safe replacement for one file (Node only: node:fs and koffi are
// imported lazily inside the functions, and nothing the browser imports imports this module).
//
// The lock is flock(2) on `FILE.lock`, called through koffi (libc on Linux and the BSDs, libSystem on
// macOS). The kernel owns it: it cannot be taken from a live holder, and it is released when the
// holder's descriptor closes, including when the process dies (SIGKILL, crash, power loss), so the
// lock file is never deleted and a leftover one is harmless. On Windows (no flock) and anywhere libc
// cannot be loaded, withFileLock throws AllocationError('LOCK_UNAVAILABLE') before running anything.
import type { FileHandle } from 'node:fs/promises';
import { AllocationError } from '../shared/errors.js';
import { importOptional } from '../shared/optional.js';
import { pause as wait } from './abort.js';

/** Options of withFileLock. */
export type FileLockOptions = {
  /** How long to wait for another holder before giving up with STATE_LOCKED, in milliseconds (default 10,000). */
  timeoutMs?: number;
  /** Stops the wait for another holder: rejects at once with the signal's reason (an AbortError), `fn` not called. */
  signal?: AbortSignal;
};

/** How long withFileLock waits for the lock by default, in milliseconds. */
export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;

// flock(2) operations: the same values on Linux, macOS and the BSDs.
const LOCK_EX = 2;
const LOCK_NB = 4;
const LOCK_UN = 8;

/** First and longest pause between two tries of a held lock, in milliseconds (doubling, with jitter). */
const FIRST_PAUSE_MS = 2;
const LONGEST_PAUSE_MS = 50;

type Flock = { flock(fd: number, operation: number): number; errno(): number; wouldBlock: number[]; interrupted: number | undefined };

let _flock: Flock | undefined;

/** Candidate C libraries that export flock, by platform. */
function _libraries(platform: NodeJS.Platform): string[] {
  if (platform === 'darwin') return ['/usr/lib/libSystem.B.dylib', 'libSystem.B.dylib'];
  if (platform === 'win32') return [];
  // glibc, FreeBSD, musl (which answers to libc.so).
  return ['libc.so.6', 'libc.so.7', 'libc.so'];
}

/** Binds flock(2) on first use; throws LOCK_UNAVAILABLE where there is none. */
async function _loadFlock(): Promise<Flock> {
  if (_flock !== undefined) return _flock;
  const unavailable = (why: string, cause?: unknown) =>
    new AllocationError('LOCK_UNAVAILABLE', `file lock: flock(2) is not available on ${process.platform}/${process.arch} (${why}); nothing was read or written`, cause === undefined ? {} : { cause });
  let koffi: typeof import('koffi');
  try {
    // koffi is an optional peer dependency: not installed is MISSING_DEPENDENCY naming it.
    const mod = (await importOptional('koffi', "JsonFileStore's file lock", () => import('koffi'))) as typeof import('koffi') & { default?: typeof import('koffi') };
    koffi = mod.default ?? mod;
  } catch (cause) {
    if (cause instanceof AllocationError) throw cause;
    throw unavailable(`the koffi module cannot be loaded: ${(cause as Error).message}`, cause);
  }
  const tried: string[] = [];
  for (const name of _libraries(process.platform)) {
    try {
      const lib = koffi.load(name);
      const flock = lib.func('int flock(int fd, int operation)') as (fd: number, operation: number) => number;
      const codes = koffi.os.errno as Record<string, number>;
      _flock = { flock, errno: () => koffi.errno(), wouldBlock: [codes.EWOULDBLOCK, codes.EAGAIN].filter((c) => c !== undefined), interrupted: codes.EINTR };
      return _flock;
    } catch (error) {
      tried.push(`${name}: ${(error as Error).message}`);
    }
  }
  throw unavailable(tried.length === 0 ? 'no flock on this platform' : `tried ${tried.join('; ')}`);
}

/** Tries flock(LOCK_EX | LOCK_NB) once: true when taken, false when another descriptor holds it. */
function _tryLock(api: Flock, fd: number, lockPath: string): boolean {
  for (;;) {
    if (api.flock(fd, LOCK_EX | LOCK_NB) === 0) return true;
    const errno = api.errno();
    if (api.wouldBlock.includes(errno)) return false;
    if (errno === api.interrupted) continue;
    const error = new Error(`flock(${lockPath}) failed with errno ${errno}`) as NodeJS.ErrnoException;
    error.errno = errno;
    error.syscall = 'flock';
    error.path = lockPath;
    throw error;
  }
}

/**
 * Who holds the flock on the open lock file, as the kernel says (Linux's /proc/locks: the pid of the
 * process that took it, by the file's device and inode): `process PID`, or `an unknown process` where
 * the kernel does not say (no /proc/locks, another platform). Informational only; never used to decide.
 */
async function _holder(handle: FileHandle): Promise<string> {
  try {
    const { readFile } = await import('node:fs/promises');
    const { dev, ino } = await handle.stat({ bigint: true });
    // glibc's dev_t: the major number in bits 8..19 and 32.., the minor in bits 0..7 and 20..
    const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
    const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
    for (const line of (await readFile('/proc/locks', 'utf8')).split('\n')) {
      // `1: FLOCK  ADVISORY  WRITE 12345 fe:00:2146344 0 EOF`; waiters (`1: -> FLOCK …`) are not holders.
      const m = /^\d+:\s+FLOCK\s+\S+\s+\S+\s+(\d+)\s+([0-9a-f]+):([0-9a-f]+):(\d+)\s/.exec(line);
      if (m !== null && BigInt(`0x${m[2]}`) === major && BigInt(`0x${m[3]}`) === minor && BigInt(m[4]!) === ino) return `process ${m[1]}`;
    }
  } catch {
    // No /proc/locks (macOS, the BSDs) or unreadable: the holder is not known.
  }
  return 'an unknown process';
}

/**
 * Runs `fn` while holding an exclusive lock on `path`: flock(2) on the file `path + '.lock'`
 * (created if missing, never deleted). Every caller that locks the same path, in this process or
 * any other, takes its turn; `fn` sees everything the previous holder wrote. The lock is released
 * when `fn` settles, or by the kernel if the process dies, so a leftover lock file from a crashed
 * run never blocks anyone. Waiting never blocks the event loop: the lock is tried without blocking
 * and retried after short pauses (2 ms doubling to 50 ms, with jitter) until `timeoutMs`, then
 * AllocationError('STATE_LOCKED') naming the lock file and its holder's pid, without calling `fn`.
 * Throws AllocationError('LOCK_UNAVAILABLE') where flock(2) cannot be loaded (Windows), and the
 * file system's error (ENOENT, EACCES, …) when the lock file cannot be opened. Not reentrant:
 * locking the same path again inside `fn` waits for itself and ends in STATE_LOCKED. On NFS, Linux
 * maps flock to a byte-range lock that the server arbitrates; other network file systems may not.
 */
export async function withFileLock<T>(path: string, fn: () => T | Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs < 0) {
    throw AllocationError.at('INVALID_ARGUMENT', 'options.timeoutMs', `expected a finite number of milliseconds >= 0, got ${String(timeoutMs)}`);
  }
  const signal = options.signal;
  signal?.throwIfAborted();
  const api = await _loadFlock();
  const { open, constants } = await import('node:fs/promises');
  const lockPath = `${path}.lock`;
  // Read-write, created if missing, never truncated on open (the holder rewrites its pid once it holds the lock).
  // flock needs no write access: a lock file another user created is opened read-only and still locks.
  // On a read-only file system an existing lock file is opened read-only too (the change then fails at its write, clearly).
  let writable = true;
  const handle = await open(lockPath, constants.O_RDWR | constants.O_CREAT, 0o666).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EACCES' && error.code !== 'EPERM' && error.code !== 'EROFS') throw error;
    writable = false;
    return open(lockPath, constants.O_RDONLY).catch(() => Promise.reject(error));
  });
  try {
    const deadline = Date.now() + timeoutMs;
    let pause = FIRST_PAUSE_MS;
    while (!_tryLock(api, handle.fd, lockPath)) {
      if (Date.now() >= deadline) {
        throw new AllocationError('STATE_LOCKED', `${lockPath} is held by ${await _holder(handle)} (waited ${timeoutMs} ms); nothing was read or written`, { details: { lock: lockPath } });
      }
      await wait(Math.min(pause * (0.5 + Math.random()), Math.max(0, deadline - Date.now())), signal);
      pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
    }
    try {
      if (writable) {
        // For a person looking at the file (`cat FILE.lock`); messages ask the kernel (_holder), and correctness never depends on it (a full disk may refuse it).
        try {
          await handle.truncate(0);
          await handle.write(`${process.pid}\n`, 0, 'utf8');
        } catch {
          // The pid is informational only.
        }
      }
      return await fn();
    } finally {
      api.flock(handle.fd, LOCK_UN);
    }
  } finally {
    await handle.close();
  }
}

/**
 * Replaces `path` with `text` (UTF-8) so that a reader, or the file after a crash, shows either the
 * old content or the new one, never a mix or a prefix: the text goes to a new temporary file in the
 * same folder (`.NAME.PID.RANDOM.tmp`, created exclusively, with the old file's permissions), is
 * flushed to disk (fsync), renamed over `path`, and the folder is flushed so the rename itself is
 * durable. On any error the temporary file is removed and `path` is left as it was. It does not
 * exclude other writers: call it inside withFileLock when several processes write the same file.
 */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const { open, rename, stat, unlink } = await import('node:fs/promises');
  const { basename, dirname, join } = await import('node:path');
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`);
  // A replaced file keeps its permissions; a new one gets 0666 less the umask, as writeFile would.
  const mode = await stat(path).then(
    (s) => s.mode & 0o7777,
    () => undefined,
  );
  try {
    const handle = await open(tmp, 'wx', mode ?? 0o666);
    try {
      await handle.writeFile(text, 'utf8');
      if (mode !== undefined) await handle.chmod(mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } catch (error) {
    await unlink(tmp).catch(() => undefined);
    throw error;
  }
  await _syncFolder(dir);
}

/** fsyncs a folder so a rename in it survives a crash; skipped where folders cannot be opened or synced (Windows, some file systems). */
async function _syncFolder(dir: string): Promise<void> {
  const { open } = await import('node:fs/promises');
  let handle: FileHandle;
  try {
    handle = await open(dir, 'r');
  } catch (error) {
    if (['EISDIR', 'EPERM', 'EACCES'].includes((error as NodeJS.ErrnoException).code ?? '')) return;
    throw error;
  }
  try {
    await handle.sync().catch((error: NodeJS.ErrnoException) => {
      if (!['EINVAL', 'ENOTSUP', 'EPERM', 'EISDIR', 'EBADF'].includes(error.code ?? '')) throw error;
    });
  } finally {
    await handle.close();
  }
}

/** Why a write of a file that could be opened can fail, in words, by errno code (a missing folder or a permission is the caller's input error, left as it is). */
const WRITE_FAILURES: Record<string, string> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EROFS: 'the file system is read-only',
  EIO: 'an I/O error',
  EFBIG: 'the file is too large',
};

/**
 * The error for a state file that could not be written (a full disk, a read-only file system, an I/O error):
 * STORE_UNAVAILABLE naming the file, the reason and errno, and saying the previous file is intact
 * (writeFileAtomic replaces it only by a rename of a complete, flushed copy). Other values pass through.
 */
export function fileWriteError(path: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (error instanceof AllocationError || typeof code !== 'string' || !(code in WRITE_FAILURES)) return error;
  return new AllocationError('STORE_UNAVAILABLE', `cannot write ${path}: ${WRITE_FAILURES[code]} (${code}); ${path} was left as it was (the previous state, still readable); nothing was changed`, {
    cause: error,
    details: { errno: code, path },
  });
}
