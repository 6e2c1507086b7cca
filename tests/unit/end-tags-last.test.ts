// The server moves React's `</body></html>` after what it streams later
// (app/lib/end-tags-last.server.ts), however the stream is cut into chunks.
import { Readable } from "node:stream";
import { text } from "node:stream/consumers";
import { describe, expect, it } from "vitest";
import { endTagsLast } from "~/lib/end-tags-last.server";

function through(chunks: string[]) {
  return text(Readable.from(chunks.map((c) => Buffer.from(c))).pipe(endTagsLast()));
}

/** The document cut into chunks of `size` bytes. */
function cut(html: string, size: number) {
  const out = [];
  for (let i = 0; i < html.length; i += size) out.push(html.slice(i, i + size));
  return out;
}

const STREAMED = `<!DOCTYPE html><html><head></head><body><p>Hi</p></body></html><script>a("</")</script><!--$--><script>b()</script><!--/$-->`;
const VALID = `<!DOCTYPE html><html><head></head><body><p>Hi</p><script>a("</")</script><!--$--><script>b()</script><!--/$--></body></html>`;

describe("endTagsLast", () => {
  it("puts </body></html> after everything streamed, whatever the chunks", async () => {
    for (const size of [1, 2, 3, 7, 13, 14, 15, STREAMED.length]) {
      expect(await through(cut(STREAMED, size)), `chunks of ${size}`).toBe(VALID);
    }
  });

  it("leaves a document with nothing after </html> as it is", async () => {
    for (const size of [1, 5, VALID.length]) expect(await through(cut(VALID, size))).toBe(VALID);
    expect(await through(["<p>no end tags</"])).toBe("<p>no end tags</");
  });
});
