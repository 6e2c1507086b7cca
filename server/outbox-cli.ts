// `npm run outbox -- status|test|list|resend|export ID|backup FILE` and `spam list|release ID|delete ID`, on the
// store on SQLite or PostgreSQL alike (bundled, decision 009).
import { existsSync } from "node:fs";
import path from "node:path";
import type { Store } from "~/contact/index.server";
import { site } from "~/content/site";
import { refuseOlderNode } from "./node-version";

const USAGE = `usage: npm run outbox -- status | test | list | resend | export ID | backup FILE
                      | spam list | spam release ID | spam delete ID | owner-link
(in the container: node build/outbox.js ...)`;

const COMMANDS = ["status", "test", "list", "resend", "export", "backup", "spam", "owner-link"];

async function main([command, ...rest]: string[]): Promise<number> {
  if (!command || !COMMANDS.includes(command)) {
    console.error(USAGE);
    return 2;
  }
  // Imported here so a bad environment is reported as a message, not a stack trace.
  const { config } = await import("~/config.server");
  // Imported after the configuration, as they read it.
  const { createContactServices } = await import("~/contact/index.server");
  const { messageCommand } = await import("./outbox-messages");
  const { ownerTest, printStatus } = await import("./outbox-owner");
  const { printOwnerLink } = await import("./outbox-owner-link");
  // A store that cannot be opened or read throws its one line here: never "none" for a file it could not read.
  const { relay, settled, state, engine, store, rateLimiters } = await createContactServices(config, {
    toName: site.name,
    log: () => {},
    waitForStore: false,
  });
  try {
    if (command === "owner-link") return await printOwnerLink(config, state);
    if (command === "backup") return await backup(store, rest[0]);
    if (command === "status") {
      return await printStatus(config, relay, state, engine.owner);
    }
    if (!relay && (command === "test" || command === "resend")) {
      console.error(
        `${command} needs the EmailJS ids (EMAILJS_PUBLIC_KEY, EMAILJS_SERVICE_ID, EMAILJS_TEMPLATE_ID).`,
      );
      return 2;
    }
    if (relay && command === "test") return await ownerTest(engine.owner, relay);
    const code = await messageCommand(engine.owner, command, rest);
    if (code !== null) return code;
    console.error(USAGE);
    return 2;
  } finally {
    await settled();
    await engine.owner.close();
    await rateLimiters.close();
  }
}

/** A consistent copy of the store while the server runs; never over an existing file. */
async function backup(store: Store, file: string | undefined): Promise<number> {
  if (!file) {
    console.error("give the file to write the copy to: npm run outbox -- backup FILE");
    return 2;
  }
  const copy = path.resolve(file);
  if (existsSync(copy)) {
    console.error(`${copy} exists: give a new file`);
    return 1;
  }
  await store.backup(copy);
  console.log(`copied ${store.where} to ${copy}`);
  return 0;
}

/** Exits once what was printed has reached a pipe: a long listing is not cut off. */
const exit = (code: number) => process.stdout.write("", () => process.exit(code));

refuseOlderNode();
main(process.argv.slice(2)).then(exit, (error: unknown) => {
  console.error(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  exit(1);
});
