// The shared kit vectors (tests/data/kit_vectors.json), which the Python kit passes too
// (tests/kit/test_kit_vectors.py): each case's table, opened by the profile engine declaring
// the case's RULES, answers every request as expected.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ANY, Session } from '../jhyap-kit.mjs';
import { ProfileEngine } from './profile-engine.mjs';

const VECTORS = JSON.parse(readFileSync(new URL('../../../tests/data/kit_vectors.json', import.meta.url), 'utf8'));

/** The profile `start` sends: the named profile with the case's changes. */
function caseProfile(c) {
  const profile = structuredClone(VECTORS.profiles[c.profile]);
  for (const [path, value] of Object.entries(c.rules ?? {})) {
    const keys = path.split('.');
    let node = profile.rules;
    for (const key of keys.slice(0, -1)) node = node[key] ??= {};
    node[keys.at(-1)] = structuredClone(value);
  }
  if ('options' in c) profile.options = structuredClone(c.options);
  return profile;
}

function bindingFor(c) {
  const declared = { ...VECTORS.binding, ...(c.binding ?? {}) };
  const rules = Object.fromEntries(Object.entries(declared).map(([path, v]) => [path, v === 'ANY' ? ANY : v]));
  // kit_defaults: the kit's own default of these hooks, as this profile engine keeps them all.
  return class VectorBinding extends ProfileEngine {
    static RULES = rules;
  };
}

/** Whether `answer` (seq dropped) is the one expected; an error by its code and the start of its message. */
function check(expected, answer, request) {
  const { seq, ...got } = JSON.parse(JSON.stringify(answer));
  const shown = `${JSON.stringify(request).slice(0, 300)}\n  expected ${JSON.stringify(expected)}\n  got      ${JSON.stringify(got)}`;
  if (!('error' in expected)) {
    assert.deepEqual(got, expected, shown);
    return;
  }
  assert.deepEqual(Object.keys(got).sort(), ['error', 'ok'], shown);
  assert.equal(got.ok, false, shown);
  assert.equal(got.error.code, expected.error.code, shown);
  assert.ok(String(got.error.message).startsWith(expected.error.message_starts), shown);
}

for (const c of VECTORS.cases) {
  const skip = c.kits && !c.kits.includes('javascript') ? `a case of ${c.kits.join(', ')} only` : false;
  test(`${c.name}: ${c.about}`, { skip }, async () => {
    const Binding = bindingFor(c);
    const session = new Session(new Binding(), Binding.info());
    for (const [seq, step] of c.requests.entries()) {
      const request = { seq, ...step.send };
      if (request.cmd === 'start') request.profile = caseProfile(c);
      check(step.answer, await session.handle(request), request);
    }
  });
}
