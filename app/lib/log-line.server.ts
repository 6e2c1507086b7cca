// One JSON line per refusal or contact outcome on stdout, the time first. Not console.log: its
// formatting would cost every line of a flood of refusals.
export function writeLogLine(event: string, fields: Record<string, unknown>) {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), event, ...fields })}\n`);
}
