import { describe, expect, it } from 'vitest';
import { defaultRenderSettings, mergeRenderSettings } from '../../src/render/settings.ts';

const LISTENER = '11111111-1111-4111-8111-111111111111';

describe('mergeRenderSettings (file over defaults, then the flags set)', () => {
  it('keeps the file where a flag is undefined, and takes a flag that is set', () => {
    const file = {
      redisImage: 'file/redis:1',
      clusterDomain: 'file.example',
      policy: { allowHostPath: true, podSecurity: 'restricted' as const },
      references: { agentServiceAccount: 'from-file', allowServiceAccountTokens: true },
    };
    const s = mergeRenderSettings(LISTENER, file, {
      redisImage: undefined,
      clusterDomain: 'flag.example',
      policy: { allowHostPath: undefined, podSecurity: 'baseline' },
      references: { agentServiceAccount: 'from-flag', allowServiceAccountTokens: undefined },
    });
    expect(s.redisImage).toBe('file/redis:1');
    expect(s.clusterDomain).toBe('flag.example');
    expect(s.policy).toMatchObject({ allowHostPath: true, podSecurity: 'baseline' });
    expect(s.references).toMatchObject({ agentServiceAccount: 'from-flag', allowServiceAccountTokens: true });
    expect(mergeRenderSettings(LISTENER, {})).toEqual(defaultRenderSettings(LISTENER));
  });
});
