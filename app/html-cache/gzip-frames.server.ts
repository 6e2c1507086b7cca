import { constants, crc32, deflateRawSync } from "node:zlib";

/**
 * A kept page, gzipped once, so a response costs a CRC instead of a
 * compression. The page is text pieces with holes between them (a nonce,
 * the visitor's typed text). Each piece is compressed on its own and ends
 * byte-aligned (sync flush); each response's hole values go between them as
 * stored (uncompressed) blocks. No back-reference covers a hole, so what a
 * hole holds changes nothing else.
 */
export type Frames = { bytes: Buffer[]; deflated: Buffer[] };

// gzip header: deflate, no name or flags, no mtime, unknown OS.
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
// An empty final block (fixed Huffman), as deflate itself ends a stream.
const LAST_BLOCK = Buffer.from([0x03, 0x00]);
const WINDOW = 32_768;
const STORED_MAX = 65_535;

/**
 * Compresses the pieces of a page. `holeLengths[i]` is the byte length of the
 * hole before piece i+1 when every response fills it with that many bytes (a
 * nonce), or null when the length varies (typed text).
 */
export function deflatePieces(pieces: string[], holeLengths: (number | null)[]): Frames {
  const bytes = pieces.map((piece) => Buffer.from(piece));
  // Each piece may refer back to the text before it (the deflate window),
  // given as a dictionary with each fixed-length hole as zero bytes: text
  // never contains a zero byte, so no back-reference can cover a hole. After
  // a hole whose length varies, distances back past it are unknown: the
  // dictionary starts again there.
  const withDictionary = !bytes.some((piece) => piece.includes(0));
  let history = Buffer.alloc(0);
  const deflated = bytes.map((piece, i) => {
    if (i > 0) {
      const length = holeLengths[i - 1];
      history = length == null ? Buffer.alloc(0) : Buffer.concat([history, Buffer.alloc(length)]);
    }
    const dictionary = withDictionary && history.length ? history.subarray(-WINDOW) : undefined;
    history = Buffer.concat([history, piece]).subarray(-WINDOW);
    return deflateRawSync(piece, { level: 9, finishFlush: constants.Z_SYNC_FLUSH, dictionary });
  });
  return { bytes, deflated };
}

/** The whole gzip stream: the pieces with `fills[i]` in the hole after piece i. */
export function gzipFilled(frames: Frames, fills: string[]) {
  const chunks: Uint8Array[] = [GZIP_HEADER];
  let crc = 0;
  let size = 0;
  // A page has one nonce in many holes: its bytes and blocks are made once.
  const made = new Map<string, { value: Buffer; blocks: Buffer[] }>();
  const storedBlocks = (fill: string) => {
    const value = Buffer.from(fill);
    const blocks: Buffer[] = [];
    for (let at = 0; at < value.length; at += STORED_MAX) {
      const part = value.subarray(at, at + STORED_MAX);
      blocks.push(storedHeader(part.length), part);
    }
    made.set(fill, { value, blocks });
    return { value, blocks };
  };
  frames.bytes.forEach((piece, i) => {
    if (i > 0) {
      const fill = fills[i - 1]!;
      const { value, blocks } = made.get(fill) ?? storedBlocks(fill);
      chunks.push(...blocks);
      crc = crc32(value, crc);
      size += value.length;
    }
    chunks.push(frames.deflated[i]!);
    crc = crc32(piece, crc);
    size += piece.length;
  });
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(size >>> 0, 4);
  return Buffer.concat([...chunks, LAST_BLOCK, trailer]);
}

/** A non-final stored block of `length` bytes (at most 65,535). */
function storedHeader(length: number) {
  return Buffer.from([0, length & 0xff, length >> 8, ~length & 0xff, (~length >> 8) & 0xff]);
}

/** Whether Accept-Encoding lists gzip with a non-zero weight. */
export function acceptsGzip(header: string | null): boolean {
  for (const item of (header ?? "").split(",")) {
    const [name, ...params] = item.split(";").map((x) => x.trim().toLowerCase());
    if (name !== "gzip") continue;
    const q = params.find((p) => p.startsWith("q="));
    return q === undefined || Number(q.slice(2)) > 0;
  }
  return false;
}
