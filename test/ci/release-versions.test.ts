/**
 * The versions a release publishes agree: package.json, the chart's version and appVersion, the
 * image tag the chart runs by default (the release workflow pushes the image as <version>), and
 * the release tag. The release workflow runs the same check before it publishes.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { repoRoot } from '../../scripts/render-deploy.ts';
import { readReleaseVersions, releaseVersionProblems } from '../../scripts/release-versions.ts';
import { only, template } from '../chart/helm.ts';

const placeholders = path.join(repoRoot, 'charts', 'mooring', 'ci', 'default-values.yaml');

describe('release versions', () => {
  it('package.json, Chart.yaml version and appVersion and values.yaml image.tag agree', () => {
    const versions = readReleaseVersions();
    expect(versions.packageVersion).toMatch(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/);
    expect(releaseVersionProblems(versions)).toEqual([]);
  });

  it('the chart renders the image <registry>/<repository>:<package.json version> by default', () => {
    const { packageVersion } = readReleaseVersions();
    // biome-ignore lint/suspicious/noExplicitAny: reading a rendered manifest
    const pod = (only(template([placeholders]), 'Deployment').spec as any).template.spec;
    const values = parse(readFileSync(path.join(repoRoot, 'charts', 'mooring', 'values.yaml'), 'utf8'));
    expect(pod.containers[0].image).toBe(
      `${values.image.registry}/${values.image.repository}:${packageVersion}`,
    );
  });

  it('names each disagreement, the release tag included', () => {
    const agreeing = { packageVersion: '1.2.3', chartVersion: '1.2.3', appVersion: '1.2.3', imageTag: '' };
    expect(releaseVersionProblems(agreeing, 'v1.2.3')).toEqual([]);
    expect(releaseVersionProblems({ ...agreeing, imageTag: '1.2.3' })).toEqual([]);
    expect(
      releaseVersionProblems(
        { packageVersion: '1.2.3', chartVersion: '1.2.4', appVersion: '1.2.2', imageTag: '1.0.0' },
        'v1.3.0',
      ),
    ).toEqual([
      "Chart.yaml version 1.2.4 is not package.json's 1.2.3",
      "Chart.yaml appVersion 1.2.2 is not package.json's 1.2.3",
      'values.yaml image.tag 1.0.0 is neither empty nor appVersion 1.2.2',
      'tag v1.3.0 is not v1.2.3 (package.json)',
    ]);
  });
});
