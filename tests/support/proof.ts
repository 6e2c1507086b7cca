// For tests and for developers who drive the contact action with scripts: fetches the form's
// challenge from a running server and solves it as the browser does, so a post takes the real path.
import { solveChallenge, type Challenge } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/sha";

export type SolvedProof = {
  /** The form field's value (`altcha`). */
  payload: string;
  /** When the server issued the challenge (ms since the epoch): a post counts from the minimum time after it. */
  issuedAt: number;
};

export async function fetchProof(
  baseUrl: string,
  headers: Record<string, string> = {},
): Promise<SolvedProof> {
  const response = await fetch(`${baseUrl}/contact/challenge`, { headers });
  if (!response.ok) throw new Error(`challenge: ${response.status}`);
  const challenge = (await response.json()) as Challenge;
  const solution = await solveChallenge({ challenge, deriveKey });
  if (!solution) throw new Error("challenge: no solution");
  const { counter, derivedKey } = solution;
  return {
    payload: Buffer.from(JSON.stringify({ challenge, solution: { counter, derivedKey } })).toString("base64"),
    issuedAt: Number(challenge.parameters.data?.issued),
  };
}

/** Resolves once `seconds` have passed since `issuedAt`: the post's own minimum, not a guessed pause. */
export function notBefore(issuedAt: number, seconds: number): Promise<void> {
  const wait = issuedAt + seconds * 1_000 - Date.now();
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, wait) + 50));
}
