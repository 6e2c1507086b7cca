// Vitest's global setup: the temporary folders of one run (stores, PostgreSQL's and Caddy's homes, fakes) go in one
// folder, removed when the run ends, so that a developer's /tmp does not fill up run after run.
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function runTmpdir() {
  // Each Vitest project runs its global setup: the first makes the folder, and its teardown comes last.
  if (process.env.TESTS_TMPDIR) return;
  const dir = mkdtempSync(join(tmpdir(), "portfolio-tests-"));
  // Others may pass through, as through /tmp, to what a test makes theirs (the image's non-root user).
  chmodSync(dir, 0o711);
  process.env.TESTS_TMPDIR = dir;
  // os.tmpdir() in the test processes, and in anything they start with this environment.
  process.env.TMPDIR = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
