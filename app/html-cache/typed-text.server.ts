import { randomBytes } from "node:crypto";
import type { EntryContext } from "@remix-run/node";
import { encode } from "turbo-stream";

/**
 * Pages that show what a visitor typed: a refused form post, answered
 * without JavaScript with the page and the form filled in again. The
 * action's data carries the typed text as `fields`, a record of strings
 * (ContactFailure does). Everything else on such a page has few values, so
 * the page is rendered once per shape with a placeholder in each field, and
 * each response puts the visitor's text where the placeholders were, escaped
 * as each spot needs. A refusal then costs about what a page view does
 * (docs/decisions/022-refused-posts-from-a-template.md).
 */
export type TypedText = {
  /** The action data with placeholders for the fields: what the page's shape is. */
  shape: Record<string, unknown>;
  /** This request's typed text, by placeholder. */
  values: Map<string, string>;
  /** The context to render the shape with: placeholders in the markup and in the data for hydration. */
  templateContext(): EntryContext;
};

/** How a spot in the markup writes text; see fill(). */
export type Spot = "attribute" | "textarea" | "handoff";

// Letters and digits only, which read the same escaped any way; random per
// process, so no content can hold one by chance.
const SEAL = randomBytes(8).toString("hex");
const HANDOFF_SCRIPT = "window.__remixContext.streamController.enqueue(";

/** The typed text in this context's action data, or null when there is none or it cannot be templated. */
export function typedText(context: EntryContext): TypedText | null {
  const { actionData, loaderData } = context.staticHandlerContext;
  const routes = Object.entries(actionData ?? {}).filter(([, data]) => isPlainObject(data));
  if (routes.length !== 1) return null;
  const [routeId, data] = routes[0]! as [string, Record<string, unknown>];
  const fields = data.fields;
  if (!isPlainObject(fields) || !Object.values(fields).every((value) => typeof value === "string"))
    return null;

  const values = new Map<string, string>();
  const placeholders: Record<string, string> = {};
  Object.entries(fields).forEach(([field, value], i) => {
    const placeholder = `typed${SEAL}${i}x`;
    placeholders[field] = placeholder;
    values.set(placeholder, value as string);
  });
  const shape = { ...actionData, [routeId]: { ...data, fields: placeholders } };

  return {
    shape,
    values,
    templateContext: () => ({
      ...context,
      staticHandlerContext: { ...context.staticHandlerContext, actionData: shape },
      // The data the page hydrates with, encoded as Remix encodes it for a
      // document (single fetch: turbo-stream, no errors on a kept page).
      serverHandoffStream: encode({ loaderData, actionData: shape, errors: null }),
      // Remix keeps what it read of the stream here: the template's own.
      renderMeta: {},
    }),
  };
}

/** What kind of spot the placeholder at `at` in a rendered template is in, or null when no fill() fits it. */
export function spotAt(html: string, at: number, placeholder: string): Spot | null {
  const before = html.slice(Math.max(0, at - 4_096), at);
  const after = html.slice(at + placeholder.length, at + placeholder.length + 16);
  const script = html.lastIndexOf("<script", at);
  if (script > html.lastIndexOf("</script>", at)) {
    // A string of the turbo-stream text in Remix's hydration script.
    const content = html.indexOf(">", script) + 1;
    return html.startsWith(HANDOFF_SCRIPT, content) && before.endsWith('\\"') && after.startsWith('\\"')
      ? "handoff"
      : null;
  }
  if (/<textarea\b[^<>]*>$/.test(before) && after.startsWith("</textarea>")) return "textarea";
  if (/<[a-z][^<>]*\s[a-zA-Z-]+="$/.test(before) && after.startsWith('"')) return "attribute";
  return null;
}

const ENTITIES: Record<string, string> = {
  '"': "&quot;",
  "&": "&amp;",
  "'": "&#x27;",
  "<": "&lt;",
  ">": "&gt;",
};
const SCRIPT_ESCAPES: Record<string, string> = {
  "&": "\\u0026",
  ">": "\\u003e",
  "<": "\\u003c",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029",
};

/** The text as React's server renderer, or Remix's hydration script, writes it at that spot. */
export function fill(spot: Spot, value: string): string {
  switch (spot) {
    case "attribute":
      return escapeMarkup(value);
    case "textarea":
      // The HTML parser drops a textarea's first newline; React writes one more.
      return (value.startsWith("\n") ? "\n" : "") + escapeMarkup(value);
    case "handoff": {
      // turbo-stream writes the string as JSON; Remix puts that text in a JS
      // string (JSON again) and escapes what could end the script.
      const twice = JSON.stringify(JSON.stringify(value).slice(1, -1)).slice(1, -1);
      return twice.replace(/[&<>\u2028\u2029]/g, (c) => SCRIPT_ESCAPES[c]!);
    }
  }
}

function escapeMarkup(value: string) {
  return value.replace(/["&'<>]/g, (c) => ENTITIES[c]!);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}
