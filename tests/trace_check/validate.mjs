// Loads trainsim Chrome traces into the Chrome DevTools trace engine (the Performance panel's
// parser) and checks it sees what the trace promises: every rank as a process, every stream as
// a thread with its slices, and the p2p flow arrows. Usage: node validate.mjs TRACE.json…
import fs from 'node:fs';

// The trace engine calls URL.parse (WHATWG URL Standard, "URL.parse(url, base)": the URL, or null
// where the constructor would throw), which Node added in 22; Debian bookworm ships Node 18. The
// fallback follows the standard's definition, so the engine behaves the same on either.
if (typeof URL.parse !== 'function') {
  URL.parse = (url, base) => {
    try {
      return base === undefined ? new URL(url) : new URL(url, base);
    } catch {
      return null;
    }
  };
}
const {analyzeEvents} = await import('@paulirish/trace_engine/analyze-trace.mjs');

let failed = 0;
for (const file of process.argv.slice(2)) {
  const trace = JSON.parse(fs.readFileSync(file, 'utf8'));
  const events = trace.traceEvents;
  const expect = {pids: new Set(), threads: new Set(), slices: 0, flows: 0};
  for (const e of events) {
    if (e.ph === 'X') {
      expect.pids.add(e.pid);
      expect.threads.add(`${e.pid}:${e.tid}`);
      expect.slices++;
    }
    if (e.ph === 's') expect.flows++;
  }
  const problems = [];
  try {
    const {parsedTrace} = await analyzeEvents(events);
    const d = parsedTrace.data;
    const procs = d.Renderer.processes;
    let threads = 0, entries = 0;
    for (const p of procs.values())
      for (const t of p.threads.values()) {
        threads++;
        entries += t.entries.length;
      }
    if (procs.size !== expect.pids.size) problems.push(`processes ${procs.size} != ${expect.pids.size}`);
    if (threads !== expect.threads.size) problems.push(`threads ${threads} != ${expect.threads.size}`);
    if (entries !== expect.slices) problems.push(`slices ${entries} != ${expect.slices}`);
    if (d.Flows.flows.length !== expect.flows) problems.push(`flows ${d.Flows.flows.length} != ${expect.flows}`);
    const b = d.Meta.traceBounds;
    if (!(b.range > 0)) problems.push('empty trace bounds');
  } catch (err) {
    problems.push(`trace engine threw: ${err.stack || err}`);
  }
  if (problems.length) {
    failed++;
    console.log(`FAIL ${file}: ${problems.join('; ')}`);
  } else {
    console.log(`ok ${file}: ${expect.pids.size} processes, ${expect.threads.size} threads, ${expect.slices} slices, ${expect.flows} flows`);
  }
}
process.exit(failed ? 1 : 0);
