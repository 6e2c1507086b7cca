// One JSON line per refusal or contact outcome on stdout; not console.log, too slow for a flood.
export function writeLogLine(event: string, fields: Record<string, unknown>) {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), event, ...fields })}\n`);
}
