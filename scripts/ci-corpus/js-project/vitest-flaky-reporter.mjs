// A vitest reporter that writes, as JSON, the tests vitest itself counts as flaky (passed on
// a retry: `testCase.diagnostic().flaky`), to $VITEST_FLAKY_REPORT. Vitest's JSON reporter
// does not say which tests were retried, so ../js.sh takes the flaky truth from here.
import fs from 'node:fs';

export default class FlakyReporter {
  onTestRunEnd(testModules) {
    const out = process.env.VITEST_FLAKY_REPORT;
    if (!out) return;
    const flaky = [];
    for (const m of testModules) {
      for (const t of m.children.allTests()) {
        const d = t.diagnostic();
        if (d && d.flaky) {
          flaky.push({ file: m.moduleId, fullName: t.fullName, retryCount: d.retryCount });
        }
      }
    }
    fs.writeFileSync(out, JSON.stringify(flaky, null, 2));
  }
}
