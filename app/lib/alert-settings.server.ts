// The owner-alert settings as the configuration reads them, and which format a URL means (decision 041).
import * as z from "zod";

export const ALERT_FORMATS = ["ntfy", "slack", "discord", "json"] as const;
export type AlertFormat = (typeof ALERT_FORMATS)[number];
export type AlertSettings = { url: string; format: AlertFormat };

const DISCORD_HOST = /^(?:(?:ptb|canary)\.)?discord(?:app)?\.com$/;
const DISCORD_PATH = /^\/api\/(?:v\d+\/)?webhooks\//;

/** Unless set: ntfy.sh is ntfy, hooks.slack.com Slack, discord.com/api/webhooks/… Discord, the rest json. */
export function alertFormat(url: string, setting?: AlertFormat): AlertFormat {
  if (setting) return setting;
  const parsed = URL.parse(url);
  if (parsed?.hostname === "ntfy.sh") return "ntfy";
  if (parsed?.hostname === "hooks.slack.com") return "slack";
  if (parsed && DISCORD_HOST.test(parsed.hostname) && DISCORD_PATH.test(parsed.pathname)) return "discord";
  return "json";
}

export const alertEnv = {
  OWNER_ALERT_URL: z.preprocess(
    (value) => (typeof value === "string" && value.trim() === "" ? undefined : value),
    z
      .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
      .refine(
        (url) => {
          const parsed = URL.parse(url);
          return !parsed?.username && !parsed?.password;
        },
        { error: "must not carry a user or password (fetch refuses them)" },
      )
      .optional(),
  ),
  OWNER_ALERT_FORMAT: z.preprocess(
    (value) => (typeof value === "string" && value.trim() !== "" ? value.trim().toLowerCase() : undefined),
    z.enum(ALERT_FORMATS, `must be one of ${ALERT_FORMATS.join(", ")}`).optional(),
  ),
};

export function alertSettings(env: {
  OWNER_ALERT_URL?: string;
  OWNER_ALERT_FORMAT?: AlertFormat;
}): AlertSettings | null {
  const url = env.OWNER_ALERT_URL;
  return url ? { url, format: alertFormat(url, env.OWNER_ALERT_FORMAT) } : null;
}
