// A vitest reporter that prints the slowest test files when the run ends, so a slower `npm test`
// shows where its time went:
//   vitest run --reporter=default --reporter=./scripts/slowest-files-reporter.ts
// A file's time is its worker's setup, its imports and its tests and hooks (files run in parallel,
// so the times add up to more than the run's wall time).
import type { Reporter, TestModule } from "vitest/node";

/** How many files the list shows. */
const SHOWN = 10;

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export default class SlowestFilesReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const files = testModules.map((module) => {
      const d = module.diagnostic();
      const setup = d.environmentSetupDuration + d.prepareDuration + d.setupDuration;
      return {
        name: module.relativeModuleId,
        total: setup + d.collectDuration + d.duration,
        imports: d.collectDuration,
        tests: d.duration,
      };
    });
    if (files.length === 0) return;
    files.sort((a, b) => b.total - a.total);
    const lines = files
      .slice(0, SHOWN)
      .map(
        (f) =>
          `  ${seconds(f.total).padStart(8)}  ${f.name}  (tests ${seconds(f.tests)}, imports ${seconds(f.imports)})`,
      );
    process.stdout.write(`\nSlowest test files (of ${files.length}):\n${lines.join("\n")}\n`);
  }
}
