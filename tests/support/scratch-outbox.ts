// A folder per test process for messages nobody looks at (outbox mode, or a relay's undelivered ones),
// removed when the process exits: servers the tests start never write into the checkout's ./outbox.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

let scratch: string | undefined;

export function scratchOutbox(): string {
  if (!scratch) {
    const dir = mkdtempSync(path.join(tmpdir(), "contact-tests-outbox-"));
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    scratch = dir;
  }
  return scratch;
}
