// The relay's rulebook on an injected clock: every next step of a message, what its visitor is told, the
// account's refusal, fair order, places, retention and the alerts due. No engine and no real second.
import { describe, expect, it } from "vitest";
import { type Message, type RelayOutcome } from "~/contact/rules/message.server";
import {
  afterAttempt,
  afterRefusal,
  attemptsWithin,
  expired,
  fairOrder,
  goesWhileRefused,
  hearsKnownFailure,
  isDue,
  CLAIM_MS,
  holdsTheRest,
  KEPT_LIMIT,
  KNOWN_FAILURE_MS,
  paceIntervalMs,
  slotWaitMs,
  spendsShare,
  placeFor,
  received,
  RESERVED_FOR_NEW_CLIENTS,
  suspected,
  takesClientPlace,
  visitorAnswer,
  type Rules,
} from "~/contact/rules/rulebook.server";
import { alertsDue, EMPTY_LEDGER } from "~/contact/rules/alerts-due.server";
import { refusedOne } from "~/contact/rules/refusals.server";
import { PROVIDER_FAILED, VALID_TEMPLATE_PARAMS } from "../support/contact";

const T0 = Date.parse("2026-11-28T12:00:00Z");
const S = 1_000;
const H = 3_600 * S;
const DAY = 24 * H;
const RULES: Rules = {
  redelivery: { firstSeconds: 60, uncertainSeconds: 600, maxSeconds: 3_600, forHours: 24 },
  providerProbeSeconds: 600,
  keepDays: 30,
  waitingAlertMinutes: 60,
};

const post = (subject = "Hello", network = "net-a", at = T0) =>
  received({ ...VALID_TEMPLATE_PARAMS, subject }, network, at);

const failed = (extra: Partial<Extract<RelayOutcome, { failure: unknown }>> = {}): RelayOutcome => ({
  ...PROVIDER_FAILED,
  ...extra,
});
const SENT: RelayOutcome = { ok: true, status: 200, attempts: 1 };

describe("what follows each answer of EmailJS", () => {
  it("sent: nothing is kept, and the visitor reads the spec's sent text", () => {
    expect(afterAttempt(post(), SENT, T0, RULES)).toBeNull();
    expect(visitorAnswer(null)).toEqual({ ok: true });
  });

  it("waits for its slot: due at once, and its visitor hears 'sent' while the provider is not known to fail", () => {
    const next = afterAttempt(post(), { ok: false, waiting: "pace" }, T0, RULES)!;
    expect(next).toMatchObject({ state: "waiting", for: "pace", nextAttempt: T0 });
    expect(isDue(next, T0)).toBe(true);
    expect(visitorAnswer(next)).toEqual({ ok: true, waiting: "pace" });
  });

  it("waits for its slot while the provider is known to fail: waits for the provider, and its visitor hears the failure", () => {
    const next = afterAttempt(post(), { ok: false, waiting: "pace" }, T0, RULES, {
      reason: "upstream_unreachable",
    })!;
    expect(next).toMatchObject({ state: "waiting", for: "provider", failure: "upstream_unreachable" });
    expect(visitorAnswer(next)).toEqual({ ok: false, status: 502, reason: "upstream_unreachable" });
  });

  it("a failure more than KNOWN_FAILURE_MS old is no longer known: the message waits for its slot and is tried", () => {
    const failedAt = T0 - KNOWN_FAILURE_MS;
    const fresh = afterAttempt(post(), { ok: false, waiting: "pace" }, T0, RULES, {
      reason: "upstream_error",
      at: failedAt,
    })!;
    expect(fresh).toMatchObject({ state: "waiting", for: "provider", failure: "upstream_error" });
    const stale = afterAttempt(post(), { ok: false, waiting: "pace" }, T0 + 1, RULES, {
      reason: "upstream_error",
      at: failedAt,
    })!;
    expect(stale).toMatchObject({ state: "waiting", for: "pace", nextAttempt: T0 + 1 });
    expect(visitorAnswer(stale)).toEqual({ ok: true, waiting: "pace" });
  });

  it("the provider failed: waits for it with the backoff, doubling up to the maximum, and its visitor hears how it failed", () => {
    let message: Message = post();
    const waits: number[] = [];
    for (let i = 0; i < 8; i++) {
      const at = T0 + i * H;
      message = afterAttempt(message, failed(), at, RULES)!;
      waits.push((message.nextAttempt! - at) / S);
    }
    expect(waits).toEqual([60, 120, 240, 480, 960, 1_920, 3_600, 3_600]);
    expect(message).toMatchObject({
      state: "waiting",
      for: "provider",
      attempts: 8,
      failure: "upstream_error",
    });
    expect(visitorAnswer(afterAttempt(post(), failed(), T0, RULES))).toEqual({
      ok: false,
      status: 502,
      reason: "upstream_error",
    });
  });

  it("an attempt that may have arrived waits longer first, and stays uncertain", () => {
    const next = afterAttempt(post(), failed({ failure: "timeout", uncertain: true }), T0, RULES)!;
    expect(next).toMatchObject({ for: "uncertain", uncertain: true, nextAttempt: T0 + 600 * S });
    expect(visitorAnswer(next)).toEqual({ ok: false, status: 504, reason: "upstream_timeout" });
    const again = afterAttempt(next, failed(), T0 + H, RULES)!;
    expect(again).toMatchObject({ for: "uncertain", uncertain: true });
  });

  it("given up once its tries fill CONTACT_REDELIVER_FOR_HOURS, counted in tries, not in time held for the budget", () => {
    const tries = attemptsWithin(RULES.redelivery);
    let message: Message = post();
    // A day held for the budget takes no try.
    message = afterAttempt(message, { ok: false, waiting: "day_limit", until: T0 + DAY }, T0, RULES)!;
    expect(message).toMatchObject({ for: "day_limit", nextAttempt: T0 + DAY, attempts: 0 });
    for (let i = 1; i < tries; i++) message = afterAttempt(message, failed(), T0 + i * H, RULES)!;
    expect(message.state).toBe("waiting");
    message = afterAttempt(message, failed(), T0 + tries * H, RULES)!;
    expect(message).toMatchObject({ state: "given_up", for: "provider", nextAttempt: null });
    expect(isDue(message, T0 + 100 * DAY)).toBe(false);
  });

  it("refused for itself: held for the owner with the provider's words, never due, its visitor told it is saved", () => {
    const next = afterAttempt(
      post(),
      failed({ failure: "rejected", status: 400, text: "Body rejected", refusedForItself: true }),
      T0,
      RULES,
    )!;
    expect(next).toMatchObject({ state: "held", for: "refused_by_provider", providerText: "Body rejected" });
    expect(isDue(next, T0 + 100 * DAY)).toBe(false);
    expect(visitorAnswer(next)).toEqual({ ok: false, status: 502, reason: "refused_by_provider" });
  });

  it("the account is refused: waits for the account, probed every CONTACT_PROVIDER_PROBE_SECONDS, its visitor told so", () => {
    const hinted = afterAttempt(
      post(),
      failed({ failure: "rejected", status: 412, hint: "reconnect" }),
      T0,
      RULES,
    )!;
    expect(hinted).toMatchObject({ for: "account", nextAttempt: T0 + 600 * S });
    expect(visitorAnswer(hinted)).toEqual({ ok: false, status: 503, reason: "provider_refusing" });
    const refused = afterAttempt(post(), { ok: false, waiting: "account" }, T0, RULES)!;
    expect(refused).toMatchObject({ for: "account", nextAttempt: T0 + 600 * S, attempts: 0 });
  });

  it("the account's refusal ended: what waited for it waits only for its slot; nothing else moves", () => {
    const account = afterAttempt(post(), { ok: false, waiting: "account" }, T0, RULES)!;
    expect(afterRefusal(account, T0 + S)).toMatchObject({ for: "pace", nextAttempt: T0 + S, since: T0 + S });
    const provider = afterAttempt(post(), failed(), T0, RULES)!;
    expect(afterRefusal(provider, T0 + S)).toBe(provider);
  });

  it("the time it entered its state moves only when its state changes", () => {
    const first = afterAttempt(post(), failed(), T0 + S, RULES)!;
    expect(first.since).toBe(T0 + S);
    expect(afterAttempt(first, failed(), T0 + H, RULES)!.since).toBe(T0 + S);
  });
});

describe("the account's refusal", () => {
  const refusal = (id: string) => ({ status: 400, words: "Template is corrupted", id });

  it("two different messages refused alike are each held for itself; a third, not one of them, confirms the account's", () => {
    let recorded = { refusals: [] as { status: number; words: string; id: string; at: number }[] };
    const steps = ["a", "b", "a", "b"].map((id, i) => {
      const { next, hint } = refusedOne(recorded, refusal(id), T0 + i * S);
      recorded = next;
      return hint;
    });
    // The same two messages tried again never confirm it: a refused message is never the probe.
    expect(steps).toEqual([null, null, null, null]);
    expect(refusedOne(recorded, refusal("c"), T0 + 10 * S).hint).toMatch(/three different messages with 400/);
  });

  it("refusals older than a day are forgotten", () => {
    let recorded = { refusals: [] as { status: number; words: string; id: string; at: number }[] };
    recorded = refusedOne(recorded, refusal("a"), T0).next;
    recorded = refusedOne(recorded, refusal("b"), T0).next;
    expect(refusedOne(recorded, refusal("c"), T0 + DAY + S).hint).toBeNull();
  });
});

describe("fair order, places and retention", () => {
  it("a backlog drains one message per network per round, each round oldest first", () => {
    const messages = [
      post("a1", "a", T0),
      post("a2", "a", T0 + 1),
      post("a3", "a", T0 + 2),
      post("b1", "b", T0 + 3),
      post("c1", "c", T0 + 4),
    ];
    expect(fairOrder(messages).map((m) => m.params.subject)).toEqual(["a1", "b1", "c1", "a2", "a3"]);
  });

  it("places: a client that keeps nothing has the reserve; spam pushes out its oldest instead of being refused", () => {
    const shared = KEPT_LIMIT - RESERVED_FOR_NEW_CLIENTS;
    expect(placeFor(shared - 1, false, false)).toBe("ok");
    expect(placeFor(shared, false, false)).toBe("full");
    expect(placeFor(shared, true, false)).toBe("ok");
    expect(placeFor(KEPT_LIMIT, true, false)).toBe("full");
    expect(placeFor(KEPT_LIMIT, false, true)).toBe("evict_oldest");
  });

  it("only what waits for the owner expires, CONTACT_KEEP_DAYS after it began to", () => {
    const spam = suspected(VALID_TEMPLATE_PARAMS, "n", ["links"], T0);
    expect(expired(spam, T0 + 30 * DAY, RULES)).toBe(false);
    expect(expired(spam, T0 + 30 * DAY + S, RULES)).toBe(true);
    const waiting = afterAttempt(post(), { ok: false, waiting: "month_limit", until: T0 }, T0, RULES)!;
    expect(expired(waiting, T0 + 400 * DAY, RULES)).toBe(false);
  });
});

describe("the alerts due", () => {
  const failing = (since: number) => ({ state: "waiting" as const, for: "provider" as const, since });

  it("messages failing past CONTACT_WAITING_ALERT_MINUTES: told once, told again only after it cleared", () => {
    const first = alertsDue(EMPTY_LEDGER, [failing(T0)], T0 + 61 * 60 * S, RULES);
    expect(first.alerts).toEqual([{ kind: "messages_waiting", count: 1, oldestHours: 1 }]);
    expect(alertsDue(first.ledger, [failing(T0)], T0 + 2 * H, RULES).alerts).toEqual([]);
    const cleared = alertsDue(first.ledger, [], T0 + 3 * H, RULES);
    expect(cleared.alerts).toEqual([]);
    expect(alertsDue(cleared.ledger, [failing(T0 + 3 * H)], T0 + 5 * H, RULES).alerts).toHaveLength(1);
  });

  it("waits for the account or the budget call for no 'waiting' alert (they have their own)", () => {
    const held = [{ state: "waiting" as const, for: "account" as const, since: T0 }];
    expect(alertsDue(EMPTY_LEDGER, held, T0 + 10 * H, RULES).alerts).toEqual([]);
  });

  it("one spam digest a day, counting the last day's", () => {
    const spam = [{ state: "held" as const, for: "suspected_spam" as const, since: T0 }];
    const first = alertsDue(EMPTY_LEDGER, spam, T0 + H, RULES);
    expect(first.alerts).toEqual([{ kind: "spam_digest", count: 1, day: "2026-11-28" }]);
    expect(alertsDue(first.ledger, spam, T0 + 2 * H, RULES).alerts).toEqual([]);
    const fresh = [...spam, { ...spam[0]!, since: T0 + DAY }];
    expect(alertsDue(first.ledger, fresh, T0 + DAY + 2 * H, RULES).alerts).toEqual([
      { kind: "spam_digest", count: 1, day: "2026-11-29" },
    ]);
  });
});

describe("what each sender waits for its slot", () => {
  it("a visitor two slots at one a second, the owner 10 s, the background never past its claim", () => {
    expect(slotWaitMs("visitor")).toBeGreaterThanOrEqual(2 * paceIntervalMs(1) - 100);
    expect(slotWaitMs("owner")).toBe(10_000);
    for (const who of ["redelivery", "probe"] as const) expect(slotWaitMs(who)).toBeLessThan(CLAIM_MS);
  });

  it("the pace keeps a margin over the provider's limit", () => {
    expect(paceIntervalMs(1)).toBe(1_050);
    expect(paceIntervalMs(4)).toBe(263);
  });

  it("a message left waiting for the pace or the budget holds the rest of a backlog; one sent or failed does not", () => {
    const waiting = afterAttempt(post(), { ok: false, waiting: "pace" }, T0, RULES);
    expect(holdsTheRest(waiting)).toBe(true);
    expect(holdsTheRest(null)).toBe(false);
    expect(holdsTheRest(afterAttempt(post(), failed(), T0, RULES))).toBe(false);
  });
});

describe("who goes, spends and hears what", () => {
  it("a network's daily share is spent once, before the first try, and never by the owner", () => {
    expect(spendsShare(post(), "visitor")).toBe(true);
    expect(spendsShare(post(), "redelivery")).toBe(true);
    expect(spendsShare(post(), "owner")).toBe(false);
    expect(spendsShare({ ...post(), shared: true }, "visitor")).toBe(false);
  });

  it("only a visitor behind its slot hears a failure the provider is known to have", () => {
    const behind = { ok: false, waiting: "pace" } as const;
    expect(hearsKnownFailure("visitor", behind)).toBe(true);
    expect(hearsKnownFailure("redelivery", behind)).toBe(false);
    expect(hearsKnownFailure("visitor", { ok: false, waiting: "day_limit" })).toBe(false);
    expect(hearsKnownFailure("visitor", failed())).toBe(false);
  });

  it("while the account is refused only the probe and the owner go; a message behind its slot takes no client's place", () => {
    expect((["visitor", "redelivery", "probe", "owner"] as const).filter(goesWhileRefused)).toEqual([
      "probe",
      "owner",
    ]);
    expect(takesClientPlace(post())).toBe(false);
    expect(takesClientPlace(afterAttempt(post(), failed(), T0, RULES)!)).toBe(true);
  });
});
