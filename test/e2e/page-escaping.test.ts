// The planner page shows what the user types as text, never as markup: a model named with HTML
// (an element with an event handler, an entity, quotes) is planned and committed, and its name
// appears verbatim in the decision log, the committed work, the cluster legend and the tile's
// tooltip, with no element of it created and no handler run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPage, type PageSession, plan } from './page.js';

const NAME = '<img src=x onerror="document.body.dataset.injected=1">&amp; "llama" <b>70b</b>';

let s: PageSession;

beforeAll(async () => {
  s = await openPage();
});

afterAll(async () => {
  await s?.close();
});

describe('planner page: text is text', () => {
  it('shows a model name written in HTML verbatim everywhere it appears, and runs none of it', async () => {
    const { page } = s;
    await plan(page, { name: NAME, memory: '40GiB' });
    expect(await page.textContent('[data-testid="result-title"]')).toContain(NAME);
    await page.click('[data-testid="commit-button"]');
    await expect.poll(() => page.locator('[data-testid="workload"]').count()).toBe(1);
    expect(await page.textContent('[data-testid="workload"] .wl-label')).toBe(NAME);
    expect(await page.textContent('[data-testid="decision-log"] tr:first-child')).toContain(NAME);
    expect(await page.locator('[data-testid="legend-model"]').textContent()).toBe(NAME);
    expect(await page.getAttribute('[data-testid="tile-slot"]', 'title')).toContain(NAME);
    // No element of the name was made, and its handler never ran.
    expect(await page.locator('main img, main b:has-text("70b")').count()).toBe(0);
    expect(await page.evaluate(() => document.body.dataset.injected)).toBeUndefined();
    expect(s.errors).toEqual([]);
  });
});
