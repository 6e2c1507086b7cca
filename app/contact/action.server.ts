// The contact action, its flash, its challenge and the redelivery, with the configuration read at start;
// the one place the action's outcome becomes Remix's answer.
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/node";
import { config } from "~/config.server";
import { site } from "~/content/site";
import { sharedRedis } from "~/lib/redis.server";
import { createBotChecks } from "./bot-checks.server";
import { createContactAction, createContactFlash } from "./create-action.server";
import { clientKey, createGuards } from "./guards.server";
import { createNotify } from "./housekeeping.server";
import { startRedelivery, type Redelivery } from "./redelivery.server";
import { createRelay, relayParts } from "./relay.server";
import { logContactEvent } from "./transport.server";

const redis = config.redisUrl ? sharedRedis(config.redisUrl) : null;
const guards = createGuards(config, redis);
const botChecks = createBotChecks(config, redis);
const { notify, settled } = createNotify(config, logContactEvent);
const relay =
  config.mail.mode === "relay"
    ? createRelay(config, relayParts(config, redis), { log: logContactEvent, notify })
    : undefined;

export const contactFlash = createContactFlash(config.sessionSecret);

const decide = createContactAction({
  config,
  toName: site.name,
  flash: contactFlash,
  guards,
  botChecks,
  relay,
});

export async function contactAction(args: ActionFunctionArgs) {
  const outcome = await decide(args);
  const { status, headers } = outcome;
  if (outcome.kind === "redirect") return redirect(outcome.location, { status, headers });
  if (outcome.kind === "failure") return data(outcome.data, { status, headers });
  throw new Response(outcome.text, { status, statusText: outcome.statusText, headers });
}

export const contactChallenge = ({ context }: Pick<LoaderFunctionArgs, "context">) =>
  botChecks.challenge(clientKey(context.clientAddress));

export function startContactRedelivery(): Redelivery {
  if (!relay) return { stop: settled };
  const redelivery = startRedelivery({ config, relay, notify });
  return {
    async stop() {
      await redelivery.stop();
      await settled();
    },
  };
}
