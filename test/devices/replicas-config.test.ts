// Where the replica policy comes from: request → --allocation-policy → GPUALLOC_ALLOCATION_POLICY → YAML → 'distributed'.
import { describe, expect, it } from 'vitest';
import { type PolicySettings, policyFromConfig, resolveAllocationPolicy } from '../../src/devices/policy-config.js';
import { AllocationError } from '../../src/shared/errors.js';

const yaml = (policy: string) => ({ text: `version: v1\nflags:\n  migStrategy: none\n  plugin:\n    passDeviceSpecs: false\n    allocationPolicy: ${policy}\n`, origin: 'plugin.yaml' });
const env = (policy: string) => ({ GPUALLOC_ALLOCATION_POLICY: policy });

describe('precedence', () => {
  const table: Array<[string, PolicySettings, string, string]> = [
    ['nothing set → distributed', {}, 'distributed', 'default'],
    ['config only', { config: yaml('pack') }, 'pack', 'config'],
    ["config with the device plugin's spelling 'packed'", { config: yaml('packed') }, 'pack', 'config'],
    ['env beats config', { env: env('spread'), config: yaml('packed') }, 'spread', 'env'],
    ['flag beats env and config', { flag: 'pack', env: env('spread'), config: yaml('distributed') }, 'pack', 'flag'],
    ['request beats everything', { request: 'spread', flag: 'pack', env: env('distributed'), config: yaml('packed') }, 'spread', 'request'],
    ['empty env value counts as unset', { env: env(''), config: yaml('spread') }, 'spread', 'config'],
    ['other env variables are ignored', { env: { ALLOCATION_POLICY: 'packed' } }, 'distributed', 'default'],
    ['config without the key falls through', { config: { text: 'version: v1\nflags:\n  plugin:\n    deviceListStrategy: envvar\n', origin: 'c.yaml' } }, 'distributed', 'default'],
    ['empty config file falls through', { config: { text: '', origin: 'c.yaml' } }, 'distributed', 'default'],
    ['config with null policy falls through', { config: { text: 'flags:\n  plugin:\n    allocationPolicy:\n', origin: 'c.yaml' } }, 'distributed', 'default'],
    ['config with no plugin section falls through', { config: { text: 'flags:\n  migStrategy: single\n', origin: 'c.yaml' } }, 'distributed', 'default'],
  ];
  for (const [name, settings, policy, source] of table) {
    it(name, async () => {
      const resolved = await resolveAllocationPolicy(settings);
      expect(resolved.policy).toBe(policy);
      expect(resolved.source).toBe(source);
    });
  }
});

describe('invalid values name where they came from', () => {
  const bad: Array<[string, PolicySettings, string, RegExp]> = [
    ['request', { request: 'binpack' }, 'UNKNOWN_POLICY', /^policy \(request\): expected one of 'distributed', 'pack', 'spread', got "binpack" \(did you mean pack\?\)$/],
    [
      "'packed' outside a config file",
      { request: 'packed' },
      'UNKNOWN_POLICY',
      /^policy \(request\): expected one of .*got "packed" \(did you mean pack\? 'packed' is the device plugin's spelling, accepted in its config file\)$/,
    ],
    ['flag', { flag: 'Packed' }, 'UNKNOWN_POLICY', /^--allocation-policy: expected one of .*got "Packed" \(did you mean pack\?\)$/],
    ['env', { env: env('round-robin') }, 'UNKNOWN_POLICY', /^environment variable GPUALLOC_ALLOCATION_POLICY: expected one of .*got "round-robin"$/],
    ['config value', { config: yaml('most-allocated') }, 'UNKNOWN_POLICY', /^config file plugin\.yaml:6:5: flags\.plugin\.allocationPolicy: expected one of .*got "most-allocated"$/],
    ['config value of the wrong type', { config: yaml('[packed]') }, 'INVALID_CONFIG', /^config file plugin\.yaml:6:5: flags\.plugin\.allocationPolicy: expected one of .*got an array of 1$/],
    ['config that is not YAML', { config: { text: 'flags: [unclosed', origin: 'broken.yaml' } }, 'INVALID_CONFIG', /^config file broken\.yaml:1:\d+: not valid YAML/],
    ['config whose top level is a list', { config: { text: '- a\n- b\n', origin: 'list.yaml' } }, 'INVALID_CONFIG', /^config file list\.yaml: \(top level\): expected a mapping/],
    [
      'config whose plugin section is a string',
      { config: { text: 'flags:\n  plugin: packed\n', origin: 'p.yaml' } },
      'INVALID_CONFIG',
      /^config file p\.yaml:2:3: flags\.plugin: expected a mapping, got "packed"$/,
    ],
    // A bad lower-precedence setting is reported even though a higher one decides.
    ['bad env under a good flag', { flag: 'pack', env: env('nope') }, 'UNKNOWN_POLICY', /GPUALLOC_ALLOCATION_POLICY.*"nope"/],
    ['bad config under a good request', { request: 'spread', config: yaml('nope') }, 'UNKNOWN_POLICY', /plugin\.yaml.*"nope"/],
  ];
  for (const [name, settings, code, message] of bad) {
    it(name, async () => {
      let thrown: unknown;
      try {
        await resolveAllocationPolicy(settings);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(AllocationError);
      expect((thrown as AllocationError).code).toBe(code);
      expect((thrown as AllocationError).message).toMatch(message);
    });
  }
});

describe('policyFromConfig', () => {
  it('reads the device plugin layout', async () => {
    expect(await policyFromConfig(yaml('spread').text, 'x')).toBe('spread');
    expect(await policyFromConfig('flags: {plugin: {allocationPolicy: pack}}', 'x')).toBe('pack');
    expect(await policyFromConfig('flags: {plugin: {allocationPolicy: packed}}', 'x')).toBe('pack');
  });
  it('does not read inherited keys: __proto__ is an unknown key like any other', async () => {
    await expect(policyFromConfig('flags:\n  __proto__:\n    allocationPolicy: packed\n', 'x')).rejects.toThrow(/^config file x:2:3: unknown key flags\.__proto__ \(allowed: /);
  });
});
