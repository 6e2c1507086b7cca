// Proof that a person used the form (decision 029): a solved ALTCHA challenge, or a signed no-JS token.
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { createChallenge, randomInt, verifySolution, type Challenge } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/sha";
import type { AppConfig } from "~/config.server";
import { CONFIRMATION_FIELD, PROOF_FIELD } from "../form/contract";
import type { Store } from "../store/store.server";

const COUNTER_RANGE = [2_000, 6_000] as const;
const PROOF_MAX_CHARS = 4_096;
const TOKEN_MAX_CHARS = 200;

type ProofVerdict =
  | { ok: true; via: "proof"; issuedAt: number }
  | { ok: true; via: "confirmation" }
  | {
      ok: false;
      problem: "missing" | "invalid" | "expired" | "too_early" | "other_client" | "used";
      /** Sent too early: goes back as it is, so pressing again soon never restarts its clock. */
      token?: string;
    };

const INVALID: ProofVerdict = { ok: false, problem: "invalid" };

export type BotChecks = {
  challenge(client: string): Promise<Challenge>;
  confirmation(client: string): string;
  verify(form: FormData, client: string): Promise<ProofVerdict>;
};

export function createBotChecks(config: AppConfig, db: Store): BotChecks {
  const { proofMinSeconds, confirmMinSeconds, maxAgeMinutes } = config.botChecks;
  const secret = (purpose: string) =>
    createHmac("sha256", config.sessionSecret).update(`contact-bot-checks:${purpose}`).digest("hex");
  const challengeSecret = secret("challenge");
  const keySecret = secret("key");
  const tokenSecret = secret("confirmation");
  const maxAgeMs = maxAgeMinutes * 60_000;
  // Each proof or token counts once, for every instance (decision 051).
  const claim = (key: string) =>
    db.claimProof(createHash("sha256").update(key).digest("base64url"), Date.now(), maxAgeMs);
  const clientTag = (client: string) =>
    createHmac("sha256", tokenSecret).update(client).digest("base64url").slice(0, 16);

  const age = (issued: number, minSeconds: number): ProofVerdict | null => {
    const elapsed = Date.now() - issued;
    if (!Number.isFinite(elapsed) || elapsed > maxAgeMs) return { ok: false, problem: "expired" };
    return elapsed < minSeconds * 1_000 ? { ok: false, problem: "too_early" } : null;
  };

  async function verifyProof(raw: string, client: string): Promise<ProofVerdict> {
    let payload: { challenge: Challenge; solution: { counter: number; derivedKey: string } };
    try {
      payload = JSON.parse(Buffer.from(raw, "base64").toString("utf8"));
      if (typeof payload?.challenge?.parameters !== "object") return INVALID;
    } catch {
      return INVALID;
    }
    const result = await verifySolution({
      challenge: payload.challenge,
      solution: payload.solution,
      deriveKey,
      hmacSignatureSecret: challengeSecret,
      hmacKeySignatureSecret: keySecret,
    }).catch(() => null);
    if (result?.expired) return { ok: false, problem: "expired" };
    if (!result?.verified) return INVALID;
    const data = payload.challenge.parameters.data ?? {};
    if (data.client !== clientTag(client)) return { ok: false, problem: "other_client" };
    const early = age(Number(data.issued), proofMinSeconds);
    if (early) return early;
    return (await claim(`proof:${payload.challenge.signature}`))
      ? { ok: true, via: "proof", issuedAt: Number(data.issued) }
      : { ok: false, problem: "used" };
  }

  async function verifyConfirmation(token: string, client: string): Promise<ProofVerdict> {
    const [issued = "", nonce = "", tag = "", signature = ""] = token.split(".");
    const expected = sign(tokenSecret, `${issued}.${nonce}.${tag}`);
    if (!/^\d{1,15}$/.test(issued) || !equal(signature, expected)) return INVALID;
    if (tag !== clientTag(client)) return { ok: false, problem: "other_client" };
    const early = age(Number(issued), confirmMinSeconds);
    if (early) return early.ok || early.problem !== "too_early" ? early : { ...early, token };
    return (await claim(`confirmation:${nonce}`))
      ? { ok: true, via: "confirmation" }
      : { ok: false, problem: "used" };
  }

  return {
    challenge: (client) =>
      createChallenge({
        algorithm: "SHA-256",
        cost: 1,
        counter: randomInt(...COUNTER_RANGE),
        deriveKey,
        expiresAt: new Date(Date.now() + maxAgeMs),
        data: { issued: Date.now(), client: clientTag(client) },
        hmacSignatureSecret: challengeSecret,
        hmacKeySignatureSecret: keySecret,
      }),

    confirmation(client) {
      const body = `${Date.now()}.${randomBytes(12).toString("base64url")}.${clientTag(client)}`;
      return `${body}.${sign(tokenSecret, body)}`;
    },

    async verify(form, client) {
      const proof = form.get(PROOF_FIELD);
      const token = form.get(CONFIRMATION_FIELD);
      let verdict: ProofVerdict = { ok: false, problem: "missing" };
      if (typeof proof === "string" && proof !== "") {
        verdict = proof.length > PROOF_MAX_CHARS ? INVALID : await verifyProof(proof, client);
        if (verdict.ok) return verdict;
      }
      if (typeof token === "string" && token !== "") {
        const confirmed = token.length > TOKEN_MAX_CHARS ? INVALID : await verifyConfirmation(token, client);
        if (confirmed.ok || verdict.problem === "missing") return confirmed;
        if (confirmed.token) return { ...verdict, token: confirmed.token };
      }
      return verdict;
    },
  };
}

function sign(secret: string, text: string) {
  return createHmac("sha256", secret).update(text).digest("base64url");
}

function equal(a: string, b: string) {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
