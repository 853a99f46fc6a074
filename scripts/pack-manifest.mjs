// The packed package.json has no `prepare` script: npm 11 counts it as an install script of the
// tarball and asks users to approve it (it would build from sources the tarball does not have).
// In the repository, `prepare` stays, so `npm ci` and `npm install` build dist/.
// `strip` (prepack, after the build) removes it and keeps the original beside it;
// `restore` (postpack) puts the original back. Like pinst does for postinstall.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

const file = new URL('../package.json', import.meta.url);
const saved = new URL('../.package.json.prepack', import.meta.url);

if (process.argv[2] === 'strip') {
  // A pack that failed after `strip` left the original beside it: that is still the original.
  const text = readFileSync(existsSync(saved) ? saved : file, 'utf8');
  const pkg = JSON.parse(text);
  delete pkg.scripts.prepare;
  writeFileSync(saved, text);
  writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`);
} else if (process.argv[2] === 'restore') {
  if (existsSync(saved)) renameSync(saved, file);
} else {
  console.error('usage: node scripts/pack-manifest.mjs strip|restore');
  process.exitCode = 2;
}
