// Headless Chromium through playwright-core (Debian's chromium package, or CHROMIUM_PATH).
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** The Chromium executable: $CHROMIUM_PATH, else the first system install found. */
export function chromiumPath(): string {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  const found = CANDIDATES.find((p) => existsSync(p));
  if (found === undefined) throw new Error(`no Chromium found (tried ${CANDIDATES.join(', ')}): apt-get install -y chromium, or set CHROMIUM_PATH`);
  return found;
}

/** Launches headless Chromium with no network beyond localhost use. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
}
