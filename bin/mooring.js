#!/usr/bin/env node
// Entry point. The sources are TypeScript run directly by Node's type stripping (Node >= 22.18),
// so there is no build step: `npm ci` then `npx mooring <command>` works.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(
    `mooring needs Node 22.19 or newer (this is ${process.versions.node}); run it through npm/npx in the project, which uses the pinned Node 24.\n`,
  );
  process.exit(2);
}
process.removeAllListeners('warning');
process.on('warning', (w) => {
  // node:sqlite and type stripping print experimental warnings that are noise for operators.
  if (w.name === 'ExperimentalWarning') return;
  process.stderr.write(`${w.name}: ${w.message}\n`);
});
// Node's on-disk compile cache ($NODE_COMPILE_CACHE, else a directory under the OS temp dir): a
// start with a warm cache skips type stripping and compilation, and never loads the type stripper
// (bench/README.md, "Measured decisions"). Best effort: an unwritable directory only means no
// cache.
const { default: module } = await import('node:module');
module.enableCompileCache?.();
const { main } = await import('../src/main.ts');
await main(process.argv.slice(2));
