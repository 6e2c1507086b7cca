// Fetches the contact form's challenge and solves it in the browser (ALTCHA's protocol, decision 029).
// Each SHA-256 round awaits Web Crypto, so the work is many short tasks, never a long one.
import { solveChallenge, type Challenge } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/web/sha";

export const CHALLENGE_PATH = "/contact/challenge";

/** The proof as the form sends it, or null when none could be had (the server then asks to confirm). */
export async function solveContactChallenge(): Promise<string | null> {
  const response = await fetch(CHALLENGE_PATH, {
    cache: "no-store",
    headers: { Accept: "application/json" },
  });
  if (!response.ok) return null;
  const challenge = (await response.json()) as Challenge;
  const solution = await solveChallenge({ challenge, deriveKey, timeout: 30_000 });
  if (!solution) return null;
  const { counter, derivedKey } = solution;
  return btoa(JSON.stringify({ challenge, solution: { counter, derivedKey } }));
}
