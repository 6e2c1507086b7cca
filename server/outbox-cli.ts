// `npm run outbox -- list|resend`: lists the messages the relay could not deliver and sends them
// again through the form's transport. Bundled into build/outbox.js (decision 009).
import { rm } from "node:fs/promises";
import path from "node:path";
import {
  createTransport,
  type ContactEvent,
  listUndelivered,
  whileResending,
  type Listed,
  type UndeliveredEntry,
} from "~/contact/mail.server";

const USAGE = "usage: npm run outbox -- list|resend  (in the container: node build/outbox.js list|resend)";

function describe({ entry, file }: { entry: UndeliveredEntry; file: string }): string {
  const { name, from_email, subject } = entry.template_params;
  const status = entry.upstreamStatus ? ` ${entry.upstreamStatus}` : "";
  const doubt = entry.uncertain ? ", may have been delivered" : "";
  return `${entry.time}  ${name} <${from_email}>  "${subject}"  (${entry.reason}${status}${doubt})  ${path.basename(file)}`;
}

function reportSkipped(skipped: Listed["skipped"]): boolean {
  for (const { file, problem } of skipped) console.error(`skipped  ${path.basename(file)}: ${problem}`);
  return skipped.length > 0;
}

async function main(command: string | undefined): Promise<number> {
  if (command !== "list" && command !== "resend") {
    console.error(USAGE);
    return 2;
  }
  // Imported here so a bad environment is reported as a message, not a stack trace.
  const { config } = await import("~/config.server");
  const dir = config.mail.undeliveredDir;

  if (command === "list") {
    const { messages, skipped } = await listUndelivered(dir);
    for (const item of messages) console.log(describe(item));
    console.log(`${messages.length} undelivered message(s) in ${dir}`);
    return reportSkipped(skipped) ? 1 : 0;
  }

  if (config.mail.mode !== "relay") {
    console.error(
      "resend needs the EmailJS ids (EMAILJS_PUBLIC_KEY, EMAILJS_SERVICE_ID, EMAILJS_TEMPLATE_ID).",
    );
    return 2;
  }
  const code = await whileResending(dir, async ({ messages, skipped }) => {
    let events: ContactEvent[] = [];
    const transport = createTransport(config.mail, (event) => events.push(event));
    let kept = 0;
    for (const item of messages) {
      events = [];
      const result = await transport(item.entry.template_params);
      const relayed = events.find((event) => event.outcome === "relayed");
      const attempts = relayed ? `, ${relayed.attempts} attempt(s)` : "";
      if (result.ok) {
        // The transport removed the message's file (its own name: see whileResending).
        await rm(item.file, { force: true });
        console.log(`sent  ${describe(item)}${attempts}`);
      } else {
        kept += 1;
        console.log(`kept  ${describe(item)}: ${result.reason}${attempts}`);
      }
    }
    console.log(`${messages.length - kept} sent, ${kept} still undelivered in ${dir}`);
    return reportSkipped(skipped) || kept > 0 ? 1 : 0;
  });
  if (code === null) {
    console.error(`another resend is running on ${dir}: nothing sent; try again when it has finished`);
    return 2;
  }
  return code;
}

main(process.argv[2]).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
    process.exit(1);
  },
);
