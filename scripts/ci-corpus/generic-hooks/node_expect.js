// Preloaded by generic.sh (`node -r`): records the uncaught exception that ends the script as
// GENERIC_EXPECTED (JSON). `uncaughtExceptionMonitor` observes without changing how node
// reports the error, so the log is node's own.
const fs = require('fs');

process.on('uncaughtExceptionMonitor', (err) => {
  const out = process.env.GENERIC_EXPECTED;
  const work = process.env.GENERIC_WORK || '';
  if (!out) return;
  let file = null;
  let line = null;
  for (const m of String(err.stack).matchAll(/\(?([^\s()]+):(\d+):\d+\)?$/gm)) {
    if (m[1].startsWith('node:') || m[1].includes('node_modules/')) continue;
    file = m[1].startsWith(work + '/') ? m[1].slice(work.length + 1) : m[1];
    line = Number(m[2]);
    break;
  }
  const failure = { test_name: `${err.name}: ${err.message}`, file_path: file, line_number: line };
  fs.writeFileSync(out, JSON.stringify({ framework: 'generic', failures: [failure] }, null, 2) + '\n');
});
