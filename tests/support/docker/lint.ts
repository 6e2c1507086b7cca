// The Dockerfile's essentials as rules; each problem is one readable line.
import { envPairs, execForm, isIgnored, parseStages, stageChain } from "./dockerfile";

/** Names whose values are secrets; DATABASE_URL carries the database's password. */
const SECRET_NAME = /KEY|SECRET|TOKEN|PASSW|CREDENTIAL|^EMAILJS_|^DATABASE_URL$/i;
/** A maintained LTS on Debian slim, with the major pinned. */
const BASE_IMAGE = /^node:(\d+)-(bookworm|trixie)-slim$/;

export function lintDockerfile(text: string): string[] {
  const problems: string[] = [];
  const stages = parseStages(text);
  const runtime = stages.at(-1);
  if (!runtime) return ["no FROM"];
  const stageNames = new Set(stages.map((stage) => stage.name));

  for (const stage of stages) {
    if (stageNames.has(stage.base)) continue;
    const major = BASE_IMAGE.exec(stage.base)?.[1];
    if (!major) problems.push(`base image ${stage.base} is not node:<major>-<debian>-slim`);
    else if (Number(major) % 2 !== 0 || Number(major) < 22)
      problems.push(`Node ${major} is not a maintained LTS`);
  }

  for (const { keyword, args } of stages.flatMap((stage) => stage.instructions)) {
    const names =
      keyword === "ARG"
        ? [args.split("=")[0]!]
        : keyword === "ENV"
          ? envPairs(args).map(([name]) => name)
          : [];
    for (const name of names)
      if (SECRET_NAME.test(name)) problems.push(`${keyword} ${name} looks like a secret`);
  }

  const chain = stageChain(stages, runtime).flatMap((stage) => stage.instructions);
  const last = (keyword: string) => chain.filter((instruction) => instruction.keyword === keyword).at(-1);
  const own = (keyword: string) =>
    runtime.instructions.filter((instruction) => instruction.keyword === keyword);

  const user = last("USER")?.args.split(":")[0];
  if (!user || user === "root" || user === "0")
    problems.push("the runtime stage does not switch to a non-root USER");

  const env = new Map(chain.filter((i) => i.keyword === "ENV").flatMap((i) => envPairs(i.args)));
  if (env.get("NODE_ENV") !== "production") problems.push("NODE_ENV is not production");
  const port = env.get("PORT") ?? "3000";
  if (!own("EXPOSE").some((instruction) => instruction.args.split(/\s+/).includes(port))) {
    problems.push(`port ${port} is not EXPOSEd`);
  }

  const healthcheck = last("HEALTHCHECK");
  if (!healthcheck) problems.push("no HEALTHCHECK");
  else if (!/^CMD\s+\[/.test(healthcheck.args)) problems.push("HEALTHCHECK is not an exec-form CMD");
  else {
    const command = execForm(healthcheck.args.replace(/^CMD\s+/, ""));
    if (command[0] !== "node") problems.push("HEALTHCHECK does not run node (slim images have no curl)");
    if (!command.join(" ").includes("/healthz")) problems.push("HEALTHCHECK does not ask /healthz");
  }

  const cmd = last("CMD");
  let command: string[] = [];
  try {
    command = cmd ? execForm(cmd.args) : [];
  } catch {
    problems.push("CMD is not in exec form, so a shell would stand between tini and node");
  }
  if (command[0] !== "node") problems.push("CMD does not run node directly (npm does not pass SIGTERM on)");
  const entrypoint = last("ENTRYPOINT");
  const init = entrypoint ? (execForm(entrypoint.args)[0] ?? "") : "";
  if (!/tini$/.test(init)) problems.push("no init (tini) as ENTRYPOINT to pass SIGTERM on");
  else if (!chain.some((i) => i.keyword === "RUN" && /apt-get install[^&]*\btini\b/.test(i.args))) {
    problems.push("tini is the ENTRYPOINT but no stage installs it");
  }

  if (own("COPY").some((instruction) => !instruction.flags.from && /^\.\s/.test(instruction.args))) {
    problems.push("the runtime stage copies the whole build context");
  }
  const installs = own("RUN").filter((instruction) => /\bnpm (ci|install)\b/.test(instruction.args));
  if (installs.length !== 1 || !/--omit=dev\b/.test(installs[0]!.args)) {
    problems.push(
      "the runtime stage does not install production dependencies only (one npm install --omit=dev)",
    );
  }
  if (!own("COPY").some((instruction) => instruction.flags.from && /\bbuild\b/.test(instruction.args))) {
    problems.push("the runtime stage does not copy the build output from a build stage");
  }
  return problems;
}

/** Paths that must never reach the build context, each checked against the rules. */
export const MUST_IGNORE = [
  "node_modules/react/index.js",
  "build/server/index.js",
  ".env",
  ".env.production",
  "outbox/2026-01-01.json",
  "test-results/results.json",
  "playwright-report/index.html",
  "bench/results/run.json",
  ".git/HEAD",
  "debug.log",
];
/** Paths the build needs. */
export const MUST_KEEP = [
  "package.json",
  "package-lock.json",
  "app/root.tsx",
  "public/favicon.svg",
  "vite.config.ts",
  ".env.example",
];

export function lintDockerignore(patterns: string[]): string[] {
  return [
    ...MUST_IGNORE.filter((path) => !isIgnored(path, patterns)).map(
      (path) => `${path} would be sent to the build`,
    ),
    ...MUST_KEEP.filter((path) => isIgnored(path, patterns)).map(
      (path) => `${path} would be left out of the build`,
    ),
  ];
}
