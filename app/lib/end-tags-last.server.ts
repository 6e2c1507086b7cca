import { Transform } from "node:stream";

const END_TAGS = Buffer.from("</body></html>");

/**
 * Moves the document's `</body></html>` to the end of the stream. React
 * writes them when the shell is done, and whatever it streams afterwards
 * (Remix's loader-data scripts, late Suspense content) lands after
 * `</html>`, which HTML does not allow. Browsers put it in the body anyway,
 * so moving the end tags changes the tree nowhere, and the document
 * validates.
 */
export function endTagsLast() {
  let found = false;
  // Bytes that could be the start of the end tags, cut by a chunk boundary.
  let held = Buffer.alloc(0);
  return new Transform({
    transform(chunk: Buffer | string, _encoding, done) {
      let bytes = Buffer.concat([held, Buffer.from(chunk)]);
      held = Buffer.alloc(0);
      if (!found) {
        const at = bytes.indexOf(END_TAGS);
        if (at >= 0) {
          found = true;
          bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + END_TAGS.length)]);
        } else {
          const keep = partialMatchLength(bytes);
          held = bytes.subarray(bytes.length - keep);
          bytes = bytes.subarray(0, bytes.length - keep);
        }
      }
      done(null, bytes.length ? bytes : undefined);
    },
    flush(done) {
      const tail = found ? Buffer.concat([held, END_TAGS]) : held;
      done(null, tail.length ? tail : undefined);
    },
  });
}

/** The length of the longest end of `bytes` that begins END_TAGS. */
function partialMatchLength(bytes: Buffer) {
  for (let n = Math.min(END_TAGS.length - 1, bytes.length); n > 0; n--) {
    if (bytes.subarray(bytes.length - n).equals(END_TAGS.subarray(0, n))) return n;
  }
  return 0;
}
