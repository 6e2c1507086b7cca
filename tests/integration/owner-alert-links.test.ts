// The owner's alerts on the wire, through real HTTP fakes of ntfy, Slack, Discord and plain JSON, and from
// the production server: the owner page linked from what asks the owner to act, and a hostile provider
// text arriving as inert text in every format (decision 056).
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createAlertSender, type AlertFormat, type OwnerAlert } from "~/contact/alerts/alerts.server";
import { startAppServer, type AppServer } from "../support/app-server";
import { BROWSER_HEADERS, VALID, postForm, relayEnv } from "../support/contact";
import { useFakeAndOutbox } from "../support/fake-and-outbox";
import { until } from "../support/until";
import { startWebhookFake, type AcceptedAlert, type WebhookFake } from "../support/webhook-fakes";

const FORMATS: AlertFormat[] = ["ntfy", "slack", "discord", "json"];
const PAGE = "https://owner.example.test/owner";
const HOSTILE =
  "limit reached [click here](https://evil.example/login) <https://evil.example|Open> **urgent** @everyone `code`";
const INERT =
  "limit reached [click here](https[:]//evil[.]example/login) <https[:]//evil[.]example|Open> **urgent** [address]";
/** Hosts a client may link though no ASCII dot joins letters (decision 058). */
const DISGUISED = "see ｅｖｉｌ．ｅｘａｍｐｌｅ, evil。example, 0xC6.0x33.0x64.0x07, 0306.0063.0144.07";

const fakes = {} as Record<AlertFormat, WebhookFake>;
beforeAll(async () => {
  for (const format of FORMATS) fakes[format] = await startWebhookFake(format);
});
afterEach(() => FORMATS.forEach((format) => fakes[format].reset()));
afterAll(() => Promise.all(FORMATS.map((format) => fakes[format].close())));

/** Everything the service received, headers and body, with Slack's escapes undone. */
const received = ({ headers, rawBody }: AcceptedAlert) =>
  `${JSON.stringify(headers)}\n${rawBody}`
    .replaceAll("&gt;", ">")
    .replaceAll("&lt;", "<")
    .replaceAll("&amp;", "&");

/** Every http(s) URL in it: only the owner page may be one. */
const urls = (text: string) => new Set(text.match(/https?:\/\/[^\s"'<>,\\]+/g));

/** What each service would render as a link or markup, beyond the owner page. */
const LIVE = /evil\.example|<https?:|<!|\]\(https?:|@everyone/;

describe.each(FORMATS)("%s", (format) => {
  const send = (alert: OwnerAlert) =>
    createAlertSender({ url: fakes[format].url, format }, { log: () => {}, ownerPage: PAGE })(alert);

  it("a refusal with a hostile provider text: accepted, the words readable and inert, the page linked", async () => {
    await expect(
      send({ kind: "provider_refusing", status: 400, providerText: HOSTILE, hint: "check the ids" }),
    ).resolves.toBe(true);
    const shown = received(fakes[format].accepted[0]!);
    expect(shown).toContain(INERT);
    expect(urls(shown)).toEqual(new Set([PAGE]));
    expect(shown.replaceAll(`<${PAGE}>`, "")).not.toMatch(LIVE);
    expect(shown.toLowerCase()).not.toContain('"markdown"');
  });

  it("hosts in other forms (fullwidth, ideographic dots, hex and octal IPv4) arrive broken", async () => {
    await send({ kind: "provider_refusing", status: 400, providerText: DISGUISED, hint: "" });
    const shown = received(fakes[format].accepted[0]!);
    expect(shown).toContain(
      "see evil[.]example, evil[.]example, 0xC6[.]0x33[.]0x64[.]0x07, 0306[.]0063[.]0144[.]07",
    );
    expect(shown).not.toMatch(/[．。]|0x33\.|0063\./);
  });

  it("held spam links the page; the provider back does not", async () => {
    await send({ kind: "spam_digest", count: 2, day: "2026-11-25" });
    await send({ kind: "provider_back", waiting: 2 });
    const [spam, back] = fakes[format].accepted.map(received);
    expect(urls(spam!)).toEqual(new Set([PAGE]));
    expect(urls(back!)).toEqual(new Set());
  });
});

describe("from the production server", { timeout: 60_000 }, () => {
  const scratch = useFakeAndOutbox("alert-links-");
  let server: AppServer | undefined;
  afterEach(() => server?.stop());

  it("EmailJS refusing the account with a hostile text: Discord gets it inert, with SITE_URL's owner page", async () => {
    const owner = fakes.discord;
    server = await startAppServer({
      env: relayEnv(scratch.fake.url, {
        OUTBOX_DIR: scratch.outbox,
        TRUST_PROXY: "1",
        SITE_URL: "https://owner.example.test/ignored/path",
        OWNER_ALERT_URL: owner.url,
        OWNER_ALERT_FORMAT: "discord",
      }),
    });
    scratch.fake.setMode({ kind: "status", status: 403, body: `non-browser applications: ${HOSTILE}` });
    await postForm(`${server.url}/?index`, VALID, { ...BROWSER_HEADERS, "X-Forwarded-For": "203.0.113.7" });
    await until(() => owner.accepted.length === 1, "the owner's refusing alert");

    const { content } = owner.accepted[0]!.body as { content: string };
    expect(content).toMatch(/^\*\*Contact form: EmailJS refuses messages \(403\)\*\*\n/);
    expect(content).toContain(`\`non-browser applications: ${INERT} 'code'\``);
    expect(content.endsWith(`\nOwner page: <${PAGE}>`)).toBe(true);
    expect(urls(content)).toEqual(new Set([PAGE]));
    expect(content.replaceAll(`<${PAGE}>`, "")).not.toMatch(LIVE);
  });
});
