// Regenerates the committed completion scripts in completions/ from the built CLI (run the
// build first): `node bin/linkctl.js completion <shell>` for each shell. test/completion.test.ts
// fails while these files differ from what the command tree generates.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const FILES = { bash: 'linkctl.bash', zsh: '_linkctl', fish: 'linkctl.fish', powershell: 'linkctl.ps1' };
for (const [shell, file] of Object.entries(FILES)) {
  const script = execFileSync(process.execPath, [new URL('bin/linkctl.js', root).pathname, 'completion', shell], { encoding: 'utf8' });
  writeFileSync(new URL(`completions/${file}`, root), script);
  console.log(`completions/${file}`);
}
