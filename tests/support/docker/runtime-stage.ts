// Replays the Dockerfile's runtime stage in a folder, without a Docker engine:
// its COPYs (from the build stage: this checkout after `npm run build`; from
// the context: this checkout less .dockerignore), its ENV and its RUNs, on the
// image's Node major. Any instruction it cannot replay faithfully is an error.
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, posix, relative } from "node:path";
import { ROOT } from "../app-server";
import {
  envPairs,
  execForm,
  isIgnored,
  readDockerfile,
  readDockerignore,
  stageChain,
  type Stage,
} from "./dockerfile";

export type ReplayedImage = {
  /** The folder standing for the runtime stage's WORKDIR. */
  dir: string;
  env: Record<string, string>;
  user: string;
  cmd: string[];
  entrypoint: string[];
  healthcheck: string[];
  exposed: string[];
  /** A PATH whose `node` and `npm` run on the image's Node major. */
  shims: string;
  /** That Node binary, where the image's user can run it. */
  node: string;
};

/** The build stage's files are this checkout once built; other stages are not replayed. */
function sourceOf(stages: Stage[], from: string, path: string): string {
  const stage = stages.find((candidate) => candidate.name === from);
  if (!stage) throw new Error(`COPY --from=${from}: unknown stage`);
  const copiesContext = stage.instructions.some(
    (i) => i.keyword === "COPY" && !i.flags.from && /^\.\s+\.$/.test(i.args),
  );
  const builds = stage.instructions.some((i) => i.keyword === "RUN" && /npm run build/.test(i.args));
  const workdir = stageChain(stages, stage)
    .flatMap((s) => s.instructions)
    .filter((i) => i.keyword === "WORKDIR")
    .at(-1)?.args;
  if (!copiesContext || !builds || !workdir)
    throw new Error(`COPY --from=${from}: not a stage that builds the context`);
  const inside = posix.relative(workdir, posix.resolve(workdir, path));
  if (inside.startsWith("..")) throw new Error(`COPY --from=${from} ${path}: outside its WORKDIR`);
  return join(ROOT, inside);
}

function copyFromContext(source: string, target: string, ignore: string[]) {
  if (isIgnored(source, ignore)) throw new Error(`COPY ${source}: left out by .dockerignore`);
  cpSync(join(ROOT, source), target, {
    recursive: true,
    filter: (path) => !isIgnored(relative(ROOT, path), ignore),
  });
}

/**
 * A build reaches the registry the way this machine does (its CA settings,
 * its npm cache as the cache mount), but without the npm_* settings that an
 * outer `npm test` passes down.
 */
function machineEnv(): NodeJS.ProcessEnv {
  return childEnv(Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name))));
}

/**
 * Exactly these variables for a child process. @remix-run/node's globals type
 * NODE_ENV as always set; a child's environment need not have it.
 */
export function childEnv(vars: Record<string, string | undefined>): NodeJS.ProcessEnv {
  return vars as unknown as NodeJS.ProcessEnv;
}

/** Whether a user with no rights of its own can run the file: it and every folder above it open to others. */
function othersCanRun(path: string): boolean {
  if ((statSync(path).mode & 0o005) !== 0o005) return false;
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return false;
    if (dir === dirname(dir)) return true;
  }
}

/**
 * `node` and `npm` on the given Node binary; `chown` to the image's user maps
 * to `runAs`. A Node the user of `runAs` cannot reach (inside a checkout in a
 * mode-700 home, say) is copied in, so the server still runs unprivileged.
 */
function writeShims(node: string, npmCli: string, user: string, runAs: string | undefined) {
  const shims = mkdtempSync(join(tmpdir(), "portfolio-image-bin-"));
  chmodSync(shims, 0o755);
  let runnable = realpathSync(node);
  if (runAs && !othersCanRun(runnable)) {
    runnable = join(shims, "node-binary");
    copyFileSync(node, runnable);
    chmodSync(runnable, 0o755);
  }
  const script = (name: string, body: string) => {
    writeFileSync(join(shims, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(shims, name), 0o755);
  };
  script("node", `exec "${runnable}" "$@"`);
  script("npm", `exec "${runnable}" "${npmCli}" "$@"`);
  script(
    "chown",
    [
      `owner="$1"; shift`,
      `[ "\${owner%%:*}" = "${user}" ] || { echo "chown to $owner, not the image's user ${user}" >&2; exit 1; }`,
      runAs ? `exec /bin/chown "${runAs}" "$@"` : "exit 0 # not root here: the files are already ours",
    ].join("\n"),
  );
  return { shims, node: runnable };
}

export function replayRuntimeStage({
  node,
  npmCli,
  runAs,
}: {
  node: string;
  npmCli: string;
  runAs?: string;
}): ReplayedImage {
  const stages = readDockerfile();
  const runtime = stages.at(-1)!;
  const chain = stageChain(stages, runtime).flatMap((stage) => stage.instructions);
  const ignore = readDockerignore();
  const workdir = chain.filter((i) => i.keyword === "WORKDIR").at(-1)?.args ?? "/";
  const user =
    chain
      .filter((i) => i.keyword === "USER")
      .at(-1)
      ?.args.split(":")[0] ?? "root";

  const dir = mkdtempSync(join(tmpdir(), "portfolio-image-"));
  chmodSync(dir, 0o755);
  const { shims, node: runnable } = writeShims(node, npmCli, user, runAs);
  const image: ReplayedImage = {
    dir,
    env: {},
    user,
    cmd: [],
    entrypoint: [],
    healthcheck: [],
    exposed: [],
    shims,
    node: runnable,
  };
  // The base stages' RUNs made the base image (tini); their ENV, WORKDIR and USER carry over.
  for (const instruction of stageChain(stages, runtime).flatMap((stage) =>
    stage === runtime
      ? stage.instructions
      : stage.instructions.filter((i) => ["ENV", "WORKDIR", "USER"].includes(i.keyword)),
  )) {
    const { keyword, flags, args } = instruction;
    const where = `Dockerfile:${instruction.line} ${keyword}`;
    switch (keyword) {
      case "WORKDIR":
        if (args !== workdir) throw new Error(`${where}: only one WORKDIR (${workdir}) is replayed`);
        break;
      case "ENV":
        Object.assign(image.env, Object.fromEntries(envPairs(args)));
        break;
      case "USER":
      case "EXPOSE":
        if (keyword === "EXPOSE") image.exposed.push(...args.split(/\s+/));
        break;
      case "COPY": {
        if (Object.keys(flags).some((flag) => flag !== "from"))
          throw new Error(`${where}: flags ${Object.keys(flags)} not replayed`);
        const parts = args.startsWith("[") ? execForm(args) : args.split(/\s+/);
        const dest = parts.pop()!;
        const target = join(dir, posix.relative(workdir, posix.resolve(workdir, dest)));
        if (relative(dir, target).startsWith("..")) throw new Error(`${where}: destination outside WORKDIR`);
        for (const source of parts) {
          const into = dest.endsWith("/") ? join(target, posix.basename(source)) : target;
          mkdirSync(dirname(into), { recursive: true });
          if (flags.from) cpSync(sourceOf(stages, flags.from, source), into, { recursive: true });
          else copyFromContext(source, into, ignore);
        }
        break;
      }
      case "RUN": {
        // A cache mount only speeds up a rebuild; it puts nothing in the image.
        for (const [flag, value] of Object.entries(flags)) {
          if (flag !== "mount" || !value.startsWith("type=cache,"))
            throw new Error(`${where}: --${flag}=${value} not replayed`);
        }
        execFileSync("/bin/sh", ["-ec", args], {
          cwd: dir,
          env: { ...machineEnv(), PATH: `${shims}:${process.env.PATH}`, ...image.env },
          stdio: ["ignore", "pipe", "pipe"],
        });
        break;
      }
      case "HEALTHCHECK":
        image.healthcheck = execForm(args.replace(/^CMD\s+/, ""));
        break;
      case "ENTRYPOINT":
        image.entrypoint = execForm(args);
        break;
      case "CMD":
        image.cmd = execForm(args);
        break;
      default:
        throw new Error(`${where}: not replayed`);
    }
  }
  return image;
}

/** The npm that this machine runs; the image's Node major runs it in the replay. */
export function findNpmCli(): string {
  const onPath = (process.env.PATH ?? "")
    .split(":")
    .map((dir) => join(dir, "npm"))
    .filter((path) => existsSync(path))
    .map((path) => realpathSync(path));
  const candidates = [
    process.env.npm_execpath,
    join(dirname(process.execPath), "../lib/node_modules/npm/bin/npm-cli.js"),
    ...onPath,
  ].filter((path): path is string => !!path && /npm-cli\.js$/.test(path));
  const found = candidates.find((path) => existsSync(path) && statSync(path).isFile());
  if (!found) throw new Error(`npm-cli.js not found (looked at ${candidates.join(", ")})`);
  return found;
}
