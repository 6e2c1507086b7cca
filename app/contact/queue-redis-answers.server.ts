// What a visitor is told of their message's job on the queue, from whichever instance's worker runs it:
// each waiting visitor follows the job's events (identical posts share a job, and each is told).
import { QueueEvents, type Queue } from "bullmq";
import type Redis from "ioredis";
import type { Message } from "./message-state.server";
import type { Sent } from "./queue.server";
import { answerOf } from "./rulebook.server";

/** Not started, or not ended, in time: it waits its turn. */
export const PACE: Sent = { ok: true, waiting: "pace" };
/** A visitor waits this long for its job to start, then is answered from its state (it goes on in the background). */
const VISITOR_START_MS = 800;
const VISITOR_STEP_MS = 12_000;

export function jobAnswers(messages: Queue<Message>, connection: Redis) {
  const events = new QueueEvents(messages.name, { connection, prefix: messages.opts.prefix });
  events.on("error", () => undefined);
  /** Every visitor waiting on a job, each told every step. */
  const waiters = new Map<string, Set<(step: Sent | "active") => void>>();
  // A step is told once the job has left `active`, so the visitor's answer may still remove it.
  const stepFromJob = async (jobId: string): Promise<Sent> => {
    const data = (await messages.getJob(jobId).catch(() => null))?.data;
    return data ? answerOf(data, data.failure) : PACE;
  };
  const tell = (jobId: string, step: Sent | Promise<Sent> | "active") => {
    const told = waiters.get(jobId);
    if (told) void Promise.resolve(step).then((step) => [...told].forEach((waiter) => waiter(step)));
  };
  events.on("active", ({ jobId }) => tell(jobId, "active"));
  events.on("completed", ({ jobId, returnvalue }) =>
    tell(jobId, (returnvalue as unknown as Sent | undefined) ?? { ok: true }),
  );
  events.on("delayed", ({ jobId }) => waiters.has(jobId) && tell(jobId, stepFromJob(jobId)));
  events.on("waiting", ({ jobId, prev }) => prev === "active" && tell(jobId, PACE));

  return {
    /**
     * What its visitor is told of a job: its answer, or "waiting for the pace" when it has not started within
     * VISITOR_START_MS or not ended within VISITOR_STEP_MS of its start. Registered before the job is added, so
     * no event is missed; `stop` when the answer comes from elsewhere.
     */
    stepOf(id: string) {
      let done: (step: Sent) => void = () => undefined;
      const step = new Promise<Sent>((resolve) => {
        let timer = setTimeout(() => done(PACE), VISITOR_START_MS);
        const waiter = (step: Sent | "active") => {
          if (step !== "active") return done(step);
          clearTimeout(timer);
          timer = setTimeout(() => done(PACE), VISITOR_STEP_MS);
        };
        done = (step) => {
          clearTimeout(timer);
          const told = waiters.get(id);
          told?.delete(waiter);
          if (!told?.size) waiters.delete(id);
          resolve(step);
        };
        waiters.set(id, (waiters.get(id) ?? new Set()).add(waiter));
      });
      return { step, stop: () => done(PACE) };
    },
    close: () => events.close(),
  };
}
