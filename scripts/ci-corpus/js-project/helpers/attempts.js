// Counts the attempts of a test in a counter file, so a test can fail on its first attempt
// and pass on the next one deterministically. The corpus script points ATTEMPTS_DIR at a
// fresh directory for every run.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

function attempt(key) {
  const dir = process.env.ATTEMPTS_DIR || path.join(os.tmpdir(), 'ci-corpus-js-attempts');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, key.replace(/[^A-Za-z0-9_-]/g, '_'));
  let n = 0;
  try {
    n = Number(fs.readFileSync(file, 'utf8')) || 0;
  } catch {
    n = 0;
  }
  n += 1;
  fs.writeFileSync(file, String(n));
  return n;
}

module.exports = { attempt };
