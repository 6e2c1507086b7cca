// The contact action, its flash and its challenge as the app runs them, with the configuration read at start.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { config } from "~/config.server";
import { site } from "~/content/site";
import { sharedRedis } from "~/lib/redis.server";
import { createBotChecks } from "./bot-checks.server";
import { createContactAction, createContactFlash } from "./create-action.server";
import { clientKey } from "./guards.server";

export const contactFlash = createContactFlash(config.sessionSecret);

export const contactAction = createContactAction({ config, toName: site.name, flash: contactFlash });

const botChecks = createBotChecks(config, config.redisUrl ? sharedRedis(config.redisUrl) : null);

export const contactChallenge = ({ request, context }: Pick<LoaderFunctionArgs, "request" | "context">) =>
  botChecks.challenge(clientKey(request, config.trustProxyHops, context.peerAddress));
