/**
 * One JSON object per line on stdout, the time first: the server's refusals
 * and the contact outcomes. Written to the stream as it is; console.log would
 * format its arguments first, which a flood of refusals pays on every line.
 */
export function writeLogLine(event: string, fields: Record<string, unknown>) {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), event, ...fields })}\n`);
}
