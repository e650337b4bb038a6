// gcc 8 and older predetermine a `const` object without mutable members as shared and reject it in
// any data-sharing clause but `firstprivate`: "'c' is predetermined 'shared' for 'shared'" (or
// 'private', 'lastprivate'). gcc 9 dropped the rule (OpenMP 4.0 had already), so gcc 12 and
// clang 14 never print it; the wording is gcc's own, from its test suite (the dg-error lines of
// c-c++-common/gomp/pr88203-*.c, "'__func__' is predetermined 'shared' for 'private'", and
// g++.dg/gomp/sharing-2.C before gcc 9). The name leaves that clause: it is shared anyway, and a
// const object the loop cannot write means the same shared or private. For `firstprivate` gcc 8
// says it only of a const object with mutable members, which sharing would make racy: declined.
import { removeEntries } from './clauses.js';
import { errorsNaming, type Rule } from './rule.js';

const PREDETERMINED = /^'([^']+)' is predetermined 'shared' for '(shared|private|lastprivate|firstprivate)'$/;

export const predeterminedShared: Rule = {
  name: 'drop-predetermined-shared',
  apply(input) {
    const reported = errorsNaming(input.errors, PREDETERMINED).map((hit) => ({
      ...hit,
      clause: PREDETERMINED.exec(hit.message.message)![2]!,
    }));
    const mutable = reported.find((hit) => hit.clause === 'firstprivate');
    if (mutable) {
      return {
        kind: 'declined',
        reason: `'${mutable.name}' is a const object with mutable members, which gcc 8 and older cannot privatize; dropping it from firstprivate would share its mutable members between threads`,
      };
    }
    let directive = input.state.directive;
    const resolved = [] as (typeof reported)[number]['message'][];
    for (const hit of reported) {
      // Out of `shared` a name stays shared; out of a privatizing clause only a const one, which
      // the loop cannot write, keeps its meaning (gcc 8 says the same of a static data member).
      if (hit.clause !== 'shared' && input.site.visible.get(hit.name)?.isConst !== true) continue;
      directive = removeEntries(directive, (entry, clause) => entry === hit.name && clause.name === hit.clause);
      resolved.push(hit.message);
    }
    return { kind: 'result', state: { ...input.state, directive }, resolved };
  },
};
