// The site's contact services, built once at start from the configuration: the action, its flash, its
// challenge and the redelivery; the one place the action's outcome becomes Remix's answer.
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/node";
import { config } from "~/config.server";
import { site } from "~/content/site";
import { clientKey, createContactAction, createContactServices } from "~/contact/index.server";

const services = await createContactServices(config, { toName: site.name });
const decide = createContactAction(services);

export const contactFlash = services.flash;

export async function contactAction(args: ActionFunctionArgs) {
  const outcome = await decide(args);
  const { status, headers } = outcome;
  if (outcome.kind === "redirect") return redirect(outcome.location, { status, headers });
  if (outcome.kind === "failure") return data(outcome.data, { status, headers });
  throw new Response(outcome.text, { status, statusText: outcome.statusText, headers });
}

export const contactChallenge = ({ context }: Pick<LoaderFunctionArgs, "context">) =>
  services.proof.challenge(clientKey(context.clientAddress));

/** The background, and at the end the store closed: its log folded into the file, so the file alone holds all. */
export function startContactRedelivery(): { stop(): Promise<void>; close(): Promise<void> } {
  const background = services.engine.start();
  return {
    async stop() {
      await background.stop();
      await services.settled();
    },
    close: async () => {
      await services.rateLimiters.close();
      await services.store.close();
    },
  };
}

/** The same services for the owner's page (app/owner/page.server.ts). */
export const contactServices = services;
