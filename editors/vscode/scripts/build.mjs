// Bundles the extension with esbuild into two files: out/extension.js, what activation
// loads, and out/languageclient.js, vscode-languageclient, which the extension loads only
// when it starts the server (src/languageClientModule.ts): four fifths of the code, not
// needed to draw the plans last seen (issue 33, item 12). `--production` minifies and
// drops source maps (used by `vsce package`); `--watch` rebuilds on change. It also writes
// the agents' logos the Plan view draws, out/media/agents (scripts/agentLogos.mjs).
import * as esbuild from 'esbuild';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeAgentLogos } from './agentLogos.mjs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

const LANGUAGE_CLIENT = 'vscode-languageclient/node';

/** The extension's `import('vscode-languageclient/node')` becomes a require of the file beside it. */
const languageClientApart = {
  name: 'language-client-apart',
  setup(build) {
    build.onResolve({ filter: /^vscode-languageclient\/node$/ }, () => ({ path: './languageclient.js', external: true }));
  },
};

const common = {
  bundle: true,
  external: ['vscode'],
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
};

const builds = [
  { ...common, entryPoints: ['src/extension.ts'], outfile: 'out/extension.js', plugins: [languageClientApart] },
  { ...common, entryPoints: [createRequire(import.meta.url).resolve(LANGUAGE_CLIENT)], outfile: 'out/languageclient.js' },
];

await writeAgentLogos(path.dirname(path.dirname(fileURLToPath(import.meta.url))));

if (watch) {
  for (const options of builds) {
    const context = await esbuild.context(options);
    await context.watch();
  }
} else {
  await Promise.all(builds.map((options) => esbuild.build(options)));
}
