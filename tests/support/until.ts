// Waits on a condition, never a fixed pause: a busy machine takes what it takes, within a bound.
import type { ChildProcess } from "node:child_process";

export async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Waits until a process just started is `ready`; fails with its log if it ends first or time runs out. */
export async function untilStarted(
  name: string,
  child: ChildProcess,
  log: () => string,
  ready: () => Promise<boolean>,
  timeoutMs = 30_000,
) {
  try {
    await until(
      async () => {
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(`${name} exited with ${child.exitCode ?? child.signalCode}`);
        return ready();
      },
      `${name} to be ready`,
      timeoutMs,
    );
  } catch (error) {
    child.kill("SIGKILL");
    throw new Error(`${(error as Error).message}:\n${log()}`);
  }
}
