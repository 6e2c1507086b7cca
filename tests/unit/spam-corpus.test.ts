// The spam score measured on tests/support/spam-corpus.ts (decision 044): how many genuine messages it
// keeps from the owner and how many spam it catches, printed, and held against the figures from before it.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { validateContact } from "~/contact/form/schema";
import { createSpamScore } from "~/contact/guard/spam-score.server";
import { openSqliteStore } from "~/contact/store/sqlite.server";
import type { Store } from "~/contact/store/store.server";
import { BROWSER_HEADERS, testConfig } from "../support/contact";
import { GENUINE, SPAM, type Sample, type Sender } from "../support/spam-corpus";

const SITE = "https://portfolio.example";
const BROWSER = { ...BROWSER_HEADERS, Origin: SITE, "Sec-Fetch-Site": "same-origin" };
const HEADLESS = { ...BROWSER, "User-Agent": BROWSER["User-Agent"].replace("Chrome/", "HeadlessChrome/") };
const SCRIPT = { "User-Agent": "python-requests/2.32.3" };

/** From the form's first focus: 20 s over name, address and subject, then about 4 characters a second. */
const typingSeconds = (message: string) => 20 + message.length / 4;

const SENDERS: Record<
  Sender,
  { headers: Record<string, string>; seconds: (message: string) => number | null }
> = {
  typed: { headers: BROWSER, seconds: typingSeconds },
  pasted: { headers: BROWSER, seconds: () => 8 },
  no_js: { headers: BROWSER, seconds: () => null },
  bot: { headers: BROWSER, seconds: () => 3.5 },
  headless: { headers: HEADLESS, seconds: () => 3.5 },
  script: { headers: SCRIPT, seconds: () => null },
  patient: { headers: BROWSER, seconds: typingSeconds },
};

const THRESHOLD = testConfig({}).spamThreshold;

/** A score with a memory of its own: a fresh store, as a new site's. */
const opened: Store[] = [];
async function freshScore() {
  const db = await openSqliteStore(mkdtempSync(path.join(tmpdir(), "spam-corpus-")), () => undefined);
  opened.push(db);
  return createSpamScore(db);
}
afterAll(() => Promise.all(opened.map((db) => db.close())));

type Verdict = { sample: Sample; kept: boolean; signals: string[] };

/** Scores a sample with a score of its own, after its campaign's earlier posts from other clients. */
async function judge(sample: Sample): Promise<Verdict> {
  const spamScore = await freshScore();
  const { headers, seconds } = SENDERS[sample.sender];
  const post = (text: string, client: string) => {
    const valid = validateContact({ ...sample.fields, message: text });
    if (!valid.ok) throw new Error(`${sample.what}: ${JSON.stringify(valid.fieldErrors)}`);
    return spamScore({
      message: valid.message,
      request: new Request(`${SITE}/?index`, { method: "POST", headers }),
      client,
      requestSignals: true,
      sentOrigin: "Origin" in headers,
      composeSeconds: seconds(valid.message.message),
    });
  };
  const { clients = 0, reworded = false } = sample.campaign ?? {};
  for (let i = 0; i < clients; i++) {
    await post(
      reworded ? `${sample.fields.message}\nRef. ${i + 1}` : sample.fields.message,
      `10.0.0.${i + 1}`,
    );
  }
  const { score, signals } = await post(sample.fields.message, "192.0.2.1");
  return { sample, kept: score >= THRESHOLD, signals };
}

const judgeAll = (samples: Sample[]) => Promise.all(samples.map(judge));

/** Measured with the score before decision 044 (at commit f443fd6). */
const BEFORE = { genuineKept: 10, spamCaught: 21 };

const share = (count: number, of: number) => `${count} of ${of} (${((100 * count) / of).toFixed(1)}%)`;
const line = ({ sample, signals }: Verdict) => `    ${sample.sender}: ${sample.what} [${signals.join(", ")}]`;

describe("the spam score on the corpus", () => {
  it("keeps no message a person typed, keeps fewer genuine ones than before, and catches no less spam", async () => {
    const genuine = await judgeAll(GENUINE);
    const spam = await judgeAll(SPAM);
    const genuineKept = genuine.filter((verdict) => verdict.kept);
    const spamCaught = spam.filter((verdict) => verdict.kept);
    console.log(
      [
        `spam score on the corpus (threshold ${THRESHOLD}):`,
        `  genuine kept as spam: ${share(genuineKept.length, GENUINE.length)}, before ${share(BEFORE.genuineKept, GENUINE.length)}`,
        ...genuineKept.map(line),
        `  spam caught: ${share(spamCaught.length, SPAM.length)}, before ${share(BEFORE.spamCaught, SPAM.length)}`,
        "  spam missed:",
        ...spam.filter((verdict) => !verdict.kept).map(line),
      ].join("\n"),
    );
    expect(genuineKept.filter(({ sample }) => sample.sender === "typed").map(line)).toEqual([]);
    expect(genuineKept.length).toBeLessThanOrEqual(BEFORE.genuineKept);
    expect(spamCaught.length).toBeGreaterThanOrEqual(BEFORE.spamCaught);
  });
});

describe("what the figures rest on", () => {
  const LINKS = "https://me.example https://github.com/me https://www.linkedin.com/in/me";
  /** Sam's post from a browser, `composeSeconds` after the form's first focus. */
  const postBy = async () => {
    const spamScore = await freshScore();
    return async (message: string, composeSeconds: number | null, client = "192.0.2.9") =>
      (
        await spamScore({
          message: { name: "Sam", email: "sam@example.org", subject: "Hello", message },
          request: new Request(`${SITE}/?index`, { method: "POST", headers: BROWSER }),
          client,
          requestSignals: true,
          sentOrigin: true,
          composeSeconds,
        })
      ).signals;
  };

  it("three links count when posted at a bot's pace or without a proof's time, not after a person's", async () => {
    const signalsOf = await postBy();
    const text = `Hi, some of my work: ${LINKS}`;
    expect(await signalsOf(text, 3.5)).toEqual(["many_links"]);
    expect(await signalsOf(text, null)).toEqual(["many_links"]);
    expect(await signalsOf(text, 60)).toEqual([]);
    expect(await signalsOf(`${text} https://x.example/talk`, 60)).toEqual(["extra_link"]);
    expect(await signalsOf(`${text} https://x.example/1 https://x.example/2`, 60)).toEqual(["many_links"]);
    // A long text typed faster than ten characters a second is not a person's pace.
    expect(await signalsOf(`${"word ".repeat(200)}${LINKS}`, 60)).toEqual(["many_links"]);
  });

  it("a link posted by nine other clients within the hour counts, whatever the text; a link to this site does not", async () => {
    const post = await postBy();
    for (let i = 0; i < 9; i++) {
      await post(`Offer ${i}: https://promo.example/deal?ref=${i} and ${SITE}/about`, 60, `10.0.1.${i}`);
    }
    expect(await post("Last offer: https://promo.example/deal/", 60, "10.0.1.99")).toEqual([
      "same_link_many_clients",
    ]);
    expect(await post(`About ${SITE}/about`, 60, "10.0.1.98")).toEqual([]);
  });
});
