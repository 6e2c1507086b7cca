// Fetches the contact form's challenge and solves it in a Web Worker (ALTCHA's protocol, decision 029),
// so the work never holds the page's main thread.
import { solveChallengeWorkers, type Challenge } from "altcha-lib";

export const CHALLENGE_PATH = "/contact/challenge";

/** The proof as the form sends it, or null when none could be had (the server then asks to confirm). */
export async function solveContactChallenge(): Promise<string | null> {
  const response = await fetch(CHALLENGE_PATH, {
    cache: "no-store",
    headers: { Accept: "application/json" },
  });
  if (!response.ok) return null;
  const challenge = (await response.json()) as Challenge;
  const solution = await solveChallengeWorkers({
    challenge,
    concurrency: 1,
    timeout: 30_000,
    createWorker: () => new Worker(new URL("./proof.worker.ts", import.meta.url), { type: "module" }),
  });
  if (!solution) return null;
  const { counter, derivedKey } = solution;
  return btoa(JSON.stringify({ challenge, solution: { counter, derivedKey } }));
}
