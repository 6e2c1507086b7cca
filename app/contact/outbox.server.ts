// The embedded default when no EmailJS account is configured: each accepted
// message is written as the JSON the relay would have sent, minus the ids and
// keys (there are none), so a developer can see exactly what would go out.
import { randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { EMAILJS_LIB_VERSION, type TemplateParams } from "./emailjs.server";

export type OutboxEntry = {
  lib_version: typeof EMAILJS_LIB_VERSION;
  template_params: TemplateParams;
};

export function outboxEntry(params: TemplateParams): OutboxEntry {
  return { lib_version: EMAILJS_LIB_VERSION, template_params: params };
}

/** Writes one message to `dir` and returns the file's path. */
export async function writeToOutbox(dir: string, params: TemplateParams): Promise<string> {
  await mkdir(dir, { recursive: true });
  // Sortable by time, unique under concurrency.
  const file = path.join(dir, `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomUUID()}.json`);
  // Visitors' addresses are personal data: owner-only permissions.
  await writeFile(file, `${JSON.stringify(outboxEntry(params), null, 2)}\n`, { mode: 0o600, flag: "wx" });
  return file;
}
