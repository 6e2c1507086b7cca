// A small reader of our Dockerfile, enough for its lint and for replaying its
// runtime stage without a Docker engine (none runs on these machines).
import { readFileSync } from "node:fs";
import { ROOT } from "../support/app-server";

export type Instruction = {
  /** Upper-cased keyword: FROM, RUN, COPY, ... */
  keyword: string;
  /** Leading `--name=value` flags (COPY --from, RUN --mount, HEALTHCHECK --interval). */
  flags: Record<string, string>;
  /** The rest of the line, flags removed. */
  args: string;
  line: number;
};

export type Stage = { name: string | undefined; base: string; instructions: Instruction[] };

export const DOCKERFILE = `${ROOT}Dockerfile`;
export const DOCKERIGNORE = `${ROOT}.dockerignore`;

/** Joins continued lines, drops comments and parser directives, splits off flags. */
export function parseInstructions(text: string): Instruction[] {
  const instructions: Instruction[] = [];
  let pending = "";
  let start = 0;
  text.split("\n").forEach((raw, index) => {
    const line = raw.trim();
    if (!pending && (line === "" || line.startsWith("#"))) return;
    if (pending && line.startsWith("#")) return; // comments may sit inside a continuation
    if (!pending) start = index + 1;
    if (line.endsWith("\\")) {
      pending += `${line.slice(0, -1)} `;
      return;
    }
    const full = (pending + line).trim();
    pending = "";
    const match = /^(\S+)\s*(.*)$/s.exec(full)!;
    let rest = match[2]!;
    const flags: Record<string, string> = {};
    for (let flag = /^--([\w-]+)=(\S+)\s*/.exec(rest); flag; flag = /^--([\w-]+)=(\S+)\s*/.exec(rest)) {
      flags[flag[1]!] = flag[2]!;
      rest = rest.slice(flag[0].length);
    }
    instructions.push({ keyword: match[1]!.toUpperCase(), flags, args: rest.trim(), line: start });
  });
  return instructions;
}

export function parseStages(text: string): Stage[] {
  const stages: Stage[] = [];
  for (const instruction of parseInstructions(text)) {
    if (instruction.keyword === "FROM") {
      const [base, as, name] = instruction.args.split(/\s+/);
      stages.push({ base: base!, name: as?.toUpperCase() === "AS" ? name : undefined, instructions: [] });
    } else {
      stages.at(-1)?.instructions.push(instruction);
    }
  }
  return stages;
}

export function readDockerfile() {
  return parseStages(readFileSync(DOCKERFILE, "utf8"));
}

/** A stage and every stage it is built FROM, outermost first. */
export function stageChain(stages: Stage[], stage: Stage): Stage[] {
  const parent = stages.find((candidate) => candidate.name === stage.base);
  return parent ? [...stageChain(stages, parent), stage] : [stage];
}

/** The exec form (`["a", "b"]`) as an array; throws on the shell form. */
export function execForm(args: string): string[] {
  const parsed: unknown = JSON.parse(args);
  if (!Array.isArray(parsed) || !parsed.every((part) => typeof part === "string")) {
    throw new Error(`not an exec-form array: ${args}`);
  }
  return parsed;
}

/** `ENV A=1 B=2` (and the old `ENV A 1`) as pairs. */
export function envPairs(args: string): [string, string][] {
  if (!args.includes("=")) {
    const [name, ...value] = args.split(/\s+/);
    return [[name!, value.join(" ")]];
  }
  return [...args.matchAll(/([\w.-]+)=("(?:[^"\\]|\\.)*"|\S*)/g)].map(([, name, value]) => [
    name!,
    value!.startsWith('"') ? (JSON.parse(value!) as string) : value!,
  ]);
}

/** The `.dockerignore` patterns, in order, without comments. */
export function readDockerignore(): string[] {
  return readFileSync(DOCKERIGNORE, "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"));
}

/**
 * Whether Docker leaves `path` (relative to the context) out, by the
 * .dockerignore rules: the last matching pattern wins, `!` re-includes, and a
 * pattern matching a folder leaves out everything below it.
 */
export function isIgnored(path: string, patterns: string[]): boolean {
  let ignored = false;
  for (const pattern of patterns) {
    const negated = pattern.startsWith("!");
    const glob = (negated ? pattern.slice(1) : pattern).replace(/^\/+/, "").replace(/\/+$/, "");
    const source = glob
      .split("/")
      .map((part) =>
        part === "**"
          ? ".*"
          : part
              .replace(/[.+^${}()|[\]\\]/g, "\\$&")
              .replace(/\*/g, "[^/]*")
              .replace(/\?/g, "[^/]"),
      )
      .join("/");
    if (new RegExp(`^${source}(/.*)?$`).test(path)) ignored = !negated;
  }
  return ignored;
}
