/** Reading a posted HTML form safely: the media type checked, the size bounded. */

const FORM_TYPES = new Set(["application/x-www-form-urlencoded", "multipart/form-data"]);

type FormPost = { ok: true; form: FormData } | { ok: false; status: 413 | 415 };

/** 413 past `limit` bytes however the body is framed; a malformed body reads as an empty form. */
export async function readFormPost(request: Request, limit: number): Promise<FormPost> {
  const type = request.headers.get("content-type") ?? "";
  if (!FORM_TYPES.has(type.split(";")[0]!.trim().toLowerCase())) return { ok: false, status: 415 };
  if (Number(request.headers.get("content-length")) > limit) return { ok: false, status: 413 };
  const bytes = await readLimited(request.body, limit);
  if (!bytes) return { ok: false, status: 413 };
  return { ok: true, form: await parseForm(bytes, type) };
}

async function parseForm(bytes: Uint8Array<ArrayBuffer>, type: string): Promise<FormData> {
  if (type.split(";")[0]!.trim().toLowerCase() === "application/x-www-form-urlencoded") {
    const form = new FormData();
    for (const [name, value] of new URLSearchParams(Buffer.from(bytes).toString())) form.append(name, value);
    return form;
  }
  return new Response(bytes, { headers: { "Content-Type": type } }).formData().catch(() => new FormData());
}

async function readLimited(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
): Promise<Uint8Array<ArrayBuffer> | null> {
  if (!body) return new Uint8Array();
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks);
    size += value.byteLength;
    if (size > limit) {
      await discardRest(reader, size, limit * DISCARD_FACTOR);
      return null;
    }
    chunks.push(value);
  }
}

// An oversized body is drained up to this multiple of the limit so the 413 is read; past it, cut.
const DISCARD_FACTOR = 16;

async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>, size: number, cap: number) {
  for (let read = size; read <= cap;) {
    const { done, value } = await reader.read();
    if (done) return;
    read += value.byteLength;
  }
  await reader.cancel();
}
