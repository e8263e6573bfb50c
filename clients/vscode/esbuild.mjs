// Bundles the extension (and vscode-languageclient) into dist/extension.js, so
// the .vsix needs no node_modules. Also emits dist/chatdoc.js, the pure text
// helpers, for the Node unit test.
import * as esbuild from 'esbuild';

const production = process.argv.includes('--production');
const common = {
  bundle: true,
  platform: 'node',
  target: 'node18',
  format: 'cjs',
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
};
await esbuild.build({ ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'] });
await esbuild.build({ ...common, entryPoints: ['src/chatdoc.ts'], outfile: 'dist/chatdoc.js', minify: false });
