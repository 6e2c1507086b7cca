// Fetches the contact form's challenge and solves it in a Web Worker (decision 029).
import { solveChallengeWorkers, type Challenge } from "altcha-lib";

const CHALLENGE_PATH = "/contact/challenge";

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
