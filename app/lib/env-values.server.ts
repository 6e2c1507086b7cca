// The kinds of value the environment gives, as zod reads them for the configuration (decision 032).
import * as z from "zod";

// docker-compose and .env files often carry `NAME=`: treat empty as unset.
export const optional = z.preprocess(
  (value) => (typeof value === "string" && value.trim() === "" ? undefined : value),
  z.string().trim().optional(),
);

export const intInRange = (fallback: number, min: number, max: number) =>
  z.preprocess(
    (value) => (value === undefined || value === "" ? String(fallback) : value),
    z.string().regex(/^\d+$/, "must be a whole number").transform(Number).pipe(z.number().min(min).max(max)),
  );

export const flag = (fallback: boolean) =>
  z.preprocess(
    (value) =>
      typeof value === "string" && value.trim() !== "" ? value.trim().toLowerCase() : String(fallback),
    z
      .enum(["1", "true", "yes", "on", "0", "false", "no", "off"], "must be on or off (true or false)")
      .transform((value) => ["1", "true", "yes", "on"].includes(value)),
  );
