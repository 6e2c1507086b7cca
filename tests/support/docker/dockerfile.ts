// Our Dockerfile and .dockerignore as the lint and the replay of the runtime
// stage read them, without a Docker engine (none runs on these machines):
// dockerfile-ast parses, @balena/dockerignore matches (Docker's own rules).
import { readFileSync } from "node:fs";
import dockerignore from "@balena/dockerignore";
import { DockerfileParser, ModifiableInstruction, type Env } from "dockerfile-ast";
import { ROOT } from "../app-server";

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

/** The instructions as dockerfile-ast parses them, flags apart from the arguments. */
export function parseInstructions(text: string): Instruction[] {
  return DockerfileParser.parse(text)
    .getInstructions()
    .map((instruction) => ({
      keyword: instruction.getKeyword(),
      flags: Object.fromEntries(
        (instruction instanceof ModifiableInstruction ? instruction.getFlags() : []).map((flag) => [
          flag.getName(),
          flag.getValue() ?? "",
        ]),
      ),
      args: (instruction.getArgumentsContent() ?? "").trim(),
      line: instruction.getRange().start.line + 1,
    }));
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

/** `ENV A=1 B=2` (and the old `ENV A 1`) as pairs, quotes resolved by dockerfile-ast. */
export function envPairs(args: string): [string, string][] {
  const [env] = DockerfileParser.parse(`ENV ${args}`).getInstructions();
  return (env as Env).getProperties().map((property) => [property.getName(), property.getValue() ?? ""]);
}

/** The `.dockerignore` patterns, in order, without comments. */
export function readDockerignore(): string[] {
  return readFileSync(DOCKERIGNORE, "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"));
}

/** Whether Docker leaves `path` (relative to the context) out, by the .dockerignore rules (@balena/dockerignore). */
export function isIgnored(path: string, patterns: string[]): boolean {
  return dockerignore().add(patterns).ignores(path);
}
