// `npm run outbox -- status|test|list|resend|export FILE` and `spam list|release FILE|delete FILE` (bundled, decision 009).
import { rm } from "node:fs/promises";
import path from "node:path";
import {
  listUndelivered,
  mayHaveArrived,
  readUndelivered,
  whileResending,
  type Listed,
  type UndeliveredEntry,
} from "~/contact/store.server";
import type { AppConfig } from "~/config.server";
import { sendKept } from "~/contact/redelivery.server";
import { nextAttemptAt, OWNER_ALLOWANCES } from "~/contact/delivery.server";
import type { Delivery } from "~/contact/queue.server";
import type { Relay } from "~/contact/relay.server";
import { site } from "~/content/site";
import { connectRedis } from "~/lib/redis.server";
import { printStatus, queueTest, sendTest } from "./outbox-owner";
import { queueCommand } from "./outbox-queue";
import { visible } from "./visible";

const USAGE = `usage: npm run outbox -- status | test | list | resend | export FILE
                      | spam list | spam release FILE | spam delete FILE
(in the container: node build/outbox.js ...)`;

function describe({ entry, file }: { entry: UndeliveredEntry; file: string }): string {
  const { name, from_email, subject } = entry.template_params;
  const status = entry.upstreamStatus ? ` ${entry.upstreamStatus}` : "";
  const doubt = mayHaveArrived(entry) ? ", uncertain: may have been delivered" : "";
  const signals = entry.signals ? `: ${visible(entry.signals.join(", "))}` : "";
  return `${entry.time}  ${visible(name)} <${visible(from_email)}>  "${visible(subject)}"  (${entry.reason}${status}${doubt}${signals})  ${path.basename(file)}`;
}

function state(entry: UndeliveredEntry, settings: Parameters<typeof nextAttemptAt>[1]): string {
  const attempts = `${entry.attempts ?? 0} attempt(s) by itself`;
  if (entry.gaveUp) return `  [given up after ${attempts}: resend or delete it]`;
  return `  [waiting, next attempt ${new Date(nextAttemptAt(entry, settings)).toISOString()}, ${attempts}]`;
}

function reportSkipped(skipped: Listed["skipped"]): boolean {
  for (const { file, problem } of skipped) console.error(`skipped  ${path.basename(file)}: ${problem}`);
  return skipped.length > 0;
}

async function list(dir: string, what: string, settings?: Parameters<typeof state>[1]): Promise<number> {
  const { messages, skipped } = await listUndelivered(dir);
  for (const item of messages) console.log(describe(item) + (settings ? state(item.entry, settings) : ""));
  console.log(`${messages.length} ${what} message(s) in ${dir}`);
  return reportSkipped(skipped) ? 1 : 0;
}

/** A file name from a listing, never a path: null (and a message) for anything else. */
function listedName(name: string | undefined, listing: string): string | null {
  if (name && path.basename(name) === name && name.endsWith(".json")) return name;
  console.error(name ? `${name}: give a file name from \`${listing}\`, without a folder` : USAGE);
  return null;
}

/** Prints a kept message whole, as JSON, for the owner to keep before it is deleted. */
async function exportMessage(config: AppConfig, name: string | undefined): Promise<number> {
  const file = listedName(name, "list");
  if (!file) return 2;
  for (const dir of [config.mail.undeliveredDir, config.mail.spamDir]) {
    const entry = await readUndelivered(path.join(dir, file));
    if ("problem" in entry) continue;
    console.log(JSON.stringify(entry, null, 2));
    return 0;
  }
  console.error(`${file}: no such kept message in ${config.mail.undeliveredDir} or ${config.mail.spamDir}`);
  return 1;
}

async function spam(
  config: AppConfig,
  delivery: Delivery,
  command: string | undefined,
  name: string | undefined,
): Promise<number> {
  const dir = config.mail.spamDir;
  if (command === "list") return list(dir, "suspected spam");
  if (command !== "release" && command !== "delete") {
    console.error(USAGE);
    return 2;
  }
  const listed = listedName(name, "spam list");
  if (!listed) return 2;
  const file = path.join(dir, listed);
  const code = await whileResending(dir, async () => {
    const entry = await readUndelivered(file);
    if ("problem" in entry) {
      console.error(`${name}: ${entry.problem}`);
      return 1;
    }
    if (command === "delete") {
      await rm(file, { force: true });
      console.log(`deleted  ${describe({ entry, file })}`);
      return 0;
    }
    const result = await delivery.send(entry.template_params, OWNER_ALLOWANCES);
    // Sent, or kept in undelivered/ by the transport to be sent again: no longer spam either way.
    if (result.ok || result.reason !== "not_kept") await rm(file, { force: true });
    if (result.ok && result.held) {
      console.log(
        `released, waiting (${result.held}) in ${config.mail.undeliveredDir}  ${describe({ entry, file })}`,
      );
    } else if (result.ok) console.log(`released  ${describe({ entry, file })}`);
    else if (result.reason === "not_kept") console.log(`not sent and not kept elsewhere: still in ${dir}`);
    else console.log(`not sent (${result.reason}): kept in ${config.mail.undeliveredDir} to be sent again`);
    return result.ok ? 0 : 1;
  });
  if (code === null) {
    console.error(`another release is running on ${dir}: try again when it has finished`);
    return 2;
  }
  return code;
}

const COMMANDS = ["status", "test", "list", "resend", "export", "spam"];

async function main([command, ...rest]: string[]): Promise<number> {
  if (!command || !COMMANDS.includes(command)) {
    console.error(USAGE);
    return 2;
  }
  // Imported here so a bad environment is reported as a message, not a stack trace.
  const { config } = await import("~/config.server");
  const dir = config.mail.undeliveredDir;
  if (!config.redisUrl && command === "list") return list(dir, "undelivered", config.redelivery);
  if (!config.redisUrl && command === "export") return exportMessage(config, rest[0]);

  // The same limits as the server's: its Redis for the rate, its folder for the budget and the provider.
  const redis = config.redisUrl ? connectRedis(config.redisUrl, { info: () => {}, warn: () => {} }) : null;
  // Imported after the configuration, as it reads it.
  const { createContactServices } = await import("~/contact/services.server");
  const { relay, ownerDelivery, settled, state, engine } = createContactServices(config, {
    toName: site.name,
    redis,
    log: () => {},
  });
  try {
    if (command === "status") {
      return await printStatus(config, relay, state, engine.owner, await redis?.risks());
    }
    if (engine.owner && relay && command === "test") return await queueTest(engine.owner, relay);
    if (engine.owner) {
      const code = await queueCommand(engine.owner, command, rest);
      if (code !== null) return code;
      console.error(USAGE);
      return 2;
    }
    if (command === "spam") return await spam(config, ownerDelivery, rest[0], rest[1]);
    if (!relay) {
      console.error(
        `${command} needs the EmailJS ids (EMAILJS_PUBLIC_KEY, EMAILJS_SERVICE_ID, EMAILJS_TEMPLATE_ID).`,
      );
      return 2;
    }
    if (command === "test") return await sendTest(relay);
    return await resend(config, relay);
  } finally {
    await settled();
    await engine.owner?.close();
    redis?.close();
  }
}

async function resend(config: AppConfig, relay: Relay): Promise<number> {
  const dir = config.mail.undeliveredDir;
  const code = await whileResending(dir, async ({ messages, skipped }) => {
    let kept = 0;
    for (const { file } of messages) {
      // Read again just before sending: a visitor's re-post or the server may have sent it meanwhile.
      const entry = await readUndelivered(file);
      if ("problem" in entry) continue;
      const sent = await sendKept(file, entry, relay, { who: "owner", settings: config.redelivery });
      if (sent.ok) {
        console.log(`sent  ${describe({ entry, file })}`);
      } else {
        kept += 1;
        console.log(`kept  ${describe({ entry, file })}: ${sent.reason}`);
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

/** Exits once what was printed has reached a pipe: a long listing is not cut off. */
const exit = (code: number) => process.stdout.write("", () => process.exit(code));

main(process.argv.slice(2)).then(exit, (error: unknown) => {
  console.error(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  exit(1);
});
