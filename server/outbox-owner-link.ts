// `outbox owner-link`: prints a one-time link that registers a passkey for the owner's page (decision 054).
import type { AppConfig } from "~/config.server";
import type { SharedState } from "~/contact/index.server";
import { createOwnerAccess, LINK_MINUTES } from "~/owner/access.server";

export async function printOwnerLink(config: AppConfig, state: SharedState): Promise<number> {
  const link = await createOwnerAccess(config, state).newLink();
  if ("error" in link) {
    console.error(`no link: ${link.error}`);
    return 2;
  }
  console.log(link.url);
  console.log(
    `Open it on the device that is to sign in, within ${LINK_MINUTES} minutes (until ${link.expires}); it works once.`,
  );
  return 0;
}
