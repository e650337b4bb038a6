// The one-line form of an event, shared by the plain reporter and the lines printed above the bars.
import { isVerifiedRepair } from '../formats/statuses.js';
import { isFatalReason, type RunEvent } from '../formats/events.js';
import type { OpenmpProbe } from '../formats/results.js';

/** One whole line for each event a person watching a run wants to see; null for the rest. */
export function describeEvent(event: RunEvent): string | null {
  switch (event.type) {
    case 'notice':
      return `${event.level === 'info' ? 'note' : event.level}: ${event.message}`;
    case 'discovery-started': {
      const reusing = `reusing ${event.reused} discovery build(s) of the resumed run`;
      if (event.reused > 0 && event.builds === 0)
        return `${reusing[0]!.toUpperCase()}${reusing.slice(1)}; no suggestion to build again`;
      const building = `Building ${event.builds} suggestion(s) with ${event.jobs} job(s)`;
      return event.reused > 0 ? `${building}, ${reusing}` : building;
    }
    case 'build-finished': {
      if (event.purpose === 'verify' || event.purpose === 'probe') return null;
      const what = event.id === null ? 'reference build' : `suggestion ${event.id}`;
      return event.ok
        ? `${what}: builds`
        : `${what}: fails (${event.error_class ?? 'other'}) ${event.first_error ?? ''}`.trimEnd();
    }
    case 'agent-picked':
      return event.message;
    case 'openmp-probe':
      // A probe that proves nothing comes with a warning of its own.
      return event.probe.status === 'rejected' || event.probe.status === 'compiled' ? describeProbe(event.probe) : null;
    case 'run-reference':
      return `Reference runs (--check-run): execute.sh ran the project without any suggestion in ${event.seconds.toFixed(1)} s; ${event.noise_lines} output line(s) differ between two runs and are not compared`;
    case 'race-reference':
      return `Race reference (--check-races): the project without any suggestion, built with ThreadSanitizer, ran at ${event.threads} threads in ${event.seconds.toFixed(1)} s; ${
        event.races.length === 0
          ? 'no data race'
          : `its own data races, not counted against any suggestion:\n${event.races.map((r) => `  ${r}`).join('\n')}`
      }`;
    case 'repair-started':
      return `Repairing suggestion ${event.id} (${event.index} of ${event.total})`;
    case 'call-finished': {
      const who = event.tier === 'builtin' ? 'built-in repairer' : 'agent';
      const at = attemptOf(event);
      if (event.outcome === 'answered') return `${at}: ${who} answered`;
      if (event.outcome === 'declined') return `${at}: ${who} declined: ${event.detail ?? ''}`;
      if (isFatalReason(event.outcome)) {
        return `${at}: agent unusable (${event.outcome})${event.detail ? `: ${event.detail}` : ''}`;
      }
      return `${at}: no answer from the ${who} (${event.outcome})${event.detail ? `: ${event.detail}` : ''}`;
    }
    case 'check': {
      if (event.passed) return null;
      const which = event.candidate === null ? '' : `, alternative ${event.candidate} of ${event.candidates}`;
      return `${attemptOf(event)}${which}: rejected by ${event.check}: ${oneLine(event.reason)}`;
    }
    case 'written':
      return `  suggestion ${event.id}: verified patch set written (${event.files.length === 1 ? 'file' : 'files'} ${event.files.join(', ')})`;
    default:
      return null;
  }
}

/**
 * A reason in one line. Its first line often only announces what follows ("New compiler errors:"),
 * so the first of those follows it, and the count of the rest is said.
 */
export function oneLine(text: string | null): string {
  const lines = (text ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  if (lines.length === 0) return '';
  if (!lines[0]!.endsWith(':') || lines.length === 1) return lines[0]!;
  const more = lines.length - 2;
  return `${lines[0]} ${lines[1]}${more > 0 ? ` (and ${more} more line${more === 1 ? '' : 's'})` : ''}`;
}

/**
 * The lines a person watching the run sees. Stateful where one event alone would mislead: a
 * suggestion is announced as being repaired only when its first call starts, so one the agent
 * budget or circuit breaker never sends anywhere is reported as such when it finishes.
 */
export class EventLines {
  private readonly announced = new Map<string, Extract<RunEvent, { type: 'repair-started' }> | null>();

  lines(event: RunEvent): string[] {
    switch (event.type) {
      case 'repair-started':
        this.announced.set(event.id, event);
        return [];
      case 'call-started': {
        const pending = this.announced.get(event.id);
        if (!pending) return [];
        this.announced.set(event.id, null);
        return [describeEvent(pending)!];
      }
      case 'suggestion-finished': {
        const { record } = event;
        if (!this.announced.has(record.id)) return [];
        const pending = this.announced.get(record.id);
        this.announced.delete(record.id);
        const why = record.reason ?? record.status;
        if (pending) return [`Suggestion ${record.id} (${pending.index} of ${pending.total}): no repair tried: ${why}`];
        return isVerifiedRepair(record)
          ? []
          : [`  suggestion ${record.id}: ${record.status.replace('_', ' ')}: ${oneLine(why)}`];
      }
      default: {
        const line = describeEvent(event);
        return line === null ? [] : [line];
      }
    }
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

/** Lines of several repairs in flight interleave: each one names its suggestion. */
function attemptOf(event: { id: string; attempt: number }): string {
  return `  suggestion ${event.id}, attempt ${event.attempt}`;
}
