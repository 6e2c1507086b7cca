// The provider's rate in this process, for the folder engine; on the queue BullMQ's limiter paces every
// instance (decisions 046, 053).
export type Pacing = {
  /** Waits at most `maxWaitMs` for a free slot (false: none came); visitors go before the background. */
  slot(who: "visitor" | "background", maxWaitMs: number, stopping?: () => boolean): Promise<boolean>;
  pause(ms: number): Promise<void>;
};

const MARGIN = 1.05;
/** A visitor looks again this often; the background comes this much after a slot frees, so visitors go first. */
const VISITOR_POLL_MS = 25;
const BACKGROUND_GRACE_MS = 60;
const BACKGROUND_POLL_MS = 250;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function createPacing(maxPerSecond: number): Pacing {
  const intervalMs = Math.ceil((1_000 / maxPerSecond) * MARGIN);
  const graceMs = Math.min(BACKGROUND_GRACE_MS, Math.ceil(intervalMs / 4));
  let freeAt = 0;

  /** 0 when the slot is taken, else how long until it frees. */
  const tryTake = () => {
    const now = Date.now();
    if (now < freeAt) return freeAt - now;
    freeAt = now + intervalMs;
    return 0;
  };

  return {
    async slot(who, maxWaitMs, stopping = () => false) {
      const deadline = Date.now() + maxWaitMs;
      for (;;) {
        if (stopping()) return false;
        const wait = tryTake();
        if (wait === 0) return true;
        const next =
          who === "visitor" ? Math.min(wait, VISITOR_POLL_MS) : Math.min(wait + graceMs, BACKGROUND_POLL_MS);
        if (Date.now() + wait > deadline) return false;
        await sleep(next);
      }
    },
    async pause(ms) {
      freeAt = Math.max(freeAt, Date.now() + ms);
    },
  };
}
