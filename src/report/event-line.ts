// The one-line form of an event, shared by the plain reporter and the lines printed above the bars.
import { isFatalReason, type RunEvent } from '../formats/events.js';
import type { OpenmpProbe } from '../formats/results.js';

/** One line for the events a person watching a run wants to see; null for the rest. */
export function describeEvent(event: RunEvent): string | null {
  switch (event.type) {
    case 'notice':
      return `${event.level === 'info' ? 'note' : event.level}: ${event.message}`;
    case 'discovery-started':
      return `Building ${event.builds} suggestion(s) with ${event.jobs} job(s)`;
    case 'build-finished': {
      if (event.purpose === 'verify' || event.purpose === 'probe') return null;
      const what = event.id === null ? 'reference build' : `suggestion ${event.id}`;
      return event.ok ? `${what}: builds` : `${what}: fails (${event.error_class ?? 'other'}) ${event.first_error ?? ''}`.trimEnd();
    }
    case 'agent-picked':
      return event.message;
    case 'openmp-probe':
      // A probe that proves nothing comes with a warning of its own.
      return event.probe.status === 'rejected' || event.probe.status === 'compiled' ? describeProbe(event.probe) : null;
    case 'repair-started':
      return `Repairing suggestion ${event.id} (${event.index} of ${event.total})`;
    case 'call-finished': {
      const who = event.tier === 'builtin' ? 'built-in repairer' : 'agent';
      if (event.outcome === 'answered') return `  try ${event.attempt}: ${who} answered`;
      if (event.outcome === 'declined') return `  try ${event.attempt}: ${who} declined: ${event.detail ?? ''}`;
      if (isFatalReason(event.outcome)) {
        return `  try ${event.attempt}: agent unusable (${event.outcome})${event.detail ? `: ${event.detail}` : ''}`;
      }
      return `  try ${event.attempt}: no answer from the ${who} (${event.outcome})${event.detail ? `: ${event.detail}` : ''}`;
    }
    case 'check':
      return event.passed ? null : `  try ${event.attempt}: rejected by ${event.check}: ${firstLine(event.reason)}`;
    case 'written':
      return `  suggestion ${event.id}: verified patch set written (${event.files.join(', ')})`;
    default:
      return null;
  }
}

/** The probe's outcome in one line, for the live run and `show`. */
export function describeProbe(probe: OpenmpProbe): string {
  const where = `${probe.file}:${probe.line}`;
  switch (probe.status) {
    case 'rejected':
      return `OpenMP probe (${where}): rejected by the compiler, so the build compiles OpenMP`;
    case 'compiled':
      return `OpenMP probe (${where}): compiled, so the build does not compile OpenMP directives`;
    case 'inconclusive':
      return `OpenMP probe (${where}): inconclusive, ${probe.detail ?? ''}`.trimEnd();
    case 'no-loop':
      return 'OpenMP probe: not run (no loop of a considered suggestion could hold it)';
  }
}

function firstLine(text: string | null): string {
  return (text ?? '').split('\n')[0] ?? '';
}
