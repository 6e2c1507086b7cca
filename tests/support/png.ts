import { inflateSync } from "node:zlib";

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Bytes per pixel of 8-bit PNGs by colour type (greyscale, RGB, palette, grey+alpha, RGBA). */
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

/**
 * Reads a PNG far enough to know it decodes: the signature, the IHDR size,
 * and image data that inflates to exactly one filtered row per line.
 * Throws on anything else. Only the 8-bit, non-interlaced PNGs resvg writes.
 */
export function decodePng(png: Buffer): { width: number; height: number } {
  if (!png.subarray(0, 8).equals(SIGNATURE)) throw new Error("not a PNG (signature)");
  let offset = 8;
  let header: { width: number; height: number; bitDepth: number; colourType: number; interlace: number };
  const data: Buffer[] = [];
  for (;;) {
    if (offset + 8 > png.length) throw new Error("truncated PNG: no IEND");
    const length = png.readUInt32BE(offset);
    const type = png.toString("latin1", offset + 4, offset + 8);
    const body = png.subarray(offset + 8, offset + 8 + length);
    offset += 12 + length;
    if (type === "IHDR") {
      header = {
        width: body.readUInt32BE(0),
        height: body.readUInt32BE(4),
        bitDepth: body[8]!,
        colourType: body[9]!,
        interlace: body[12]!,
      };
    } else if (type === "IDAT") data.push(body);
    else if (type === "IEND") break;
  }
  const { width, height, bitDepth, colourType, interlace } = header!;
  const channels = CHANNELS[colourType];
  if (!channels || bitDepth !== 8 || interlace !== 0) {
    throw new Error(`unexpected PNG format: depth ${bitDepth}, colour type ${colourType}`);
  }
  const pixels = inflateSync(Buffer.concat(data));
  if (pixels.length !== height * (1 + width * channels)) throw new Error("PNG image data has the wrong size");
  return { width, height };
}
