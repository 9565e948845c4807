/**
 * The versions a release publishes must agree: package.json's version (what `mooring --version`
 * prints), the chart's version and appVersion, the image tag the chart runs by default (values.yaml
 * `image.tag`, empty meaning appVersion) and, when cutting a release, the git tag `v<version>`.
 * The release workflow runs this before publishing anything; the test suite runs it on every
 * change, so the versions cannot drift apart between releases either.
 *
 *   node scripts/release-versions.ts [TAG]     (exit 1 and one line per disagreement)
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The version fields of a checkout, as read from its files. */
export interface ReleaseVersions {
  packageVersion: string;
  chartVersion: string;
  appVersion: string;
  /** values.yaml `image.tag`; empty means the chart's appVersion. */
  imageTag: string;
}

/** Reads the version fields from package.json, charts/mooring/Chart.yaml and values.yaml under `root`. */
export function readReleaseVersions(root: string = repo): ReleaseVersions {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
  const chart = parse(readFileSync(path.join(root, 'charts', 'mooring', 'Chart.yaml'), 'utf8')) as {
    version: unknown;
    appVersion: unknown;
  };
  const values = parse(readFileSync(path.join(root, 'charts', 'mooring', 'values.yaml'), 'utf8')) as {
    image?: { tag?: unknown };
  };
  return {
    packageVersion: String(pkg.version),
    chartVersion: String(chart.version),
    appVersion: String(chart.appVersion),
    imageTag: String(values.image?.tag ?? ''),
  };
}

/** Every disagreement between the versions (and the release tag, when given); empty when they agree. */
export function releaseVersionProblems(versions: ReleaseVersions, tag?: string): string[] {
  const { packageVersion, chartVersion, appVersion, imageTag } = versions;
  const problems: string[] = [];
  if (chartVersion !== packageVersion)
    problems.push(`Chart.yaml version ${chartVersion} is not package.json's ${packageVersion}`);
  if (appVersion !== packageVersion)
    problems.push(`Chart.yaml appVersion ${appVersion} is not package.json's ${packageVersion}`);
  // The image is published as <version>; a pinned tag in values.yaml would run another release.
  if (imageTag !== '' && imageTag !== appVersion)
    problems.push(`values.yaml image.tag ${imageTag} is neither empty nor appVersion ${appVersion}`);
  if (tag !== undefined && tag !== `v${packageVersion}`)
    problems.push(`tag ${tag} is not v${packageVersion} (package.json)`);
  return problems;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const tag = process.argv[2];
  const versions = readReleaseVersions();
  const problems = releaseVersionProblems(versions, tag);
  for (const line of problems) console.error(`release versions: ${line}`);
  if (problems.length > 0) process.exit(1);
  console.log(`release versions agree: ${versions.packageVersion}${tag ? ` (tag ${tag})` : ''}`);
}
