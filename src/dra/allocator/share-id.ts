// Share IDs for the shares of devices that allow multiple allocations. Upstream draws random UUIDs;
// here they are UUID-shaped (version 4 bits) but derived from the seed, the claims and the device,
// so the same input and seed give the same IDs. An ID already held by another claim is never reused.
import type { ResourceClaim } from '../objects/index.js';

/** 128 bits of a string as four 32-bit words (cyrb128 mixing). */
function hash128(text: string): [number, number, number, number] {
  let h1 = 1779033703,
    h2 = 3144134277,
    h3 = 1013904242,
    h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

function uuidOf(words: [number, number, number, number]): string {
  const hex = words.map((w) => w.toString(16).padStart(8, '0')).join('');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16); // hex has 32 digits
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** A source of share IDs for one call: deterministic in (seed, claims, device, order of shares). */
export function shareIdSource(seed: number, claims: readonly ResourceClaim[], taken: ReadonlySet<string>): (deviceId: string) => string {
  // Made on the first share asked for: most allocations take no share.
  let base: string | undefined;
  let used: Set<string> | undefined;
  let n = 0;
  return (deviceId) => {
    base ??= `${seed}\u0000${claims.map((c) => `${c.namespace ?? ''}/${c.name}/${c.uid ?? ''}`).join('\u0000')}`;
    used ??= new Set<string>();
    for (;;) {
      const id = uuidOf(hash128(`${base}\u0000${deviceId}\u0000${n++}`));
      if (!used.has(id) && !taken.has(`${deviceId}/${id}`)) {
        used.add(id);
        return id;
      }
    }
  };
}
