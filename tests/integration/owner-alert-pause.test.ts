// The pause alert through real HTTP fakes of ntfy, Slack, Discord and plain JSON: accepted in each format,
// with what EmailJS asked and when sending goes on (decision 050).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAlertSender, type AlertFormat, type OwnerAlert } from "~/contact/alerts/alerts.server";
import { startWebhookFake, type WebhookFake } from "../support/webhook-fakes";

const FORMATS: AlertFormat[] = ["ntfy", "slack", "discord", "json"];
const ALERT: OwnerAlert = {
  kind: "provider_pause",
  status: 429,
  askedMs: 86_400_000,
  at: "2026-11-27T10:00:00Z",
};
const FACTS = [
  "asks to wait 24 hours",
  "429",
  "until 2026-11-28T10:00:00Z",
  "60 seconds at most",
  "tried again",
];

const fakes = {} as Record<AlertFormat, WebhookFake>;
beforeAll(async () => {
  for (const format of FORMATS) fakes[format] = await startWebhookFake(format);
});
afterAll(() => Promise.all(FORMATS.map((format) => fakes[format].close())));

describe.each(FORMATS)("%s", (format) => {
  it("the pause alert is accepted and says what was asked and when sending goes on", async () => {
    const send = createAlertSender({ url: fakes[format].url, format }, { log: () => {} });
    await expect(send(ALERT)).resolves.toBe(true);
    const [request] = fakes[format].accepted;
    const shown = `${JSON.stringify(request!.headers)}${request!.rawBody}`;
    for (const fact of FACTS) expect(shown).toContain(fact);
    if (format === "ntfy") expect(request!.headers).toMatchObject({ priority: "high", tags: "pause_button" });
    if (format === "json") {
      expect(request!.body).toMatchObject({ event: "provider_pause", status: 429, askedMs: 86_400_000 });
    }
  });
});
