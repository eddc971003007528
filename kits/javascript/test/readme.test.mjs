// The README's 30-line binding runs: a hand over the protocol through a child process.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { deckFor, fixture } from './profile-engine.mjs';

const here = new URL('..', import.meta.url);

test('the README binding serves a hand', () => {
  const readme = readFileSync(new URL('README.md', here), 'utf8');
  const block = readme.match(/```js\n([\s\S]*?)```/)[1];
  assert.ok(block.trimEnd().split('\n').length <= 30, 'at most 30 lines');
  const code = block
    .replace("'./jhyap-kit.mjs'", JSON.stringify(new URL('jhyap-kit.mjs', here).href))
    .replace("'../../examples/javascript-object/yaniv.mjs'", JSON.stringify(new URL('../../examples/javascript-object/yaniv.mjs', here).href));
  // Its own temporary folder (under TMPDIR: the Python test that runs these points it at
  // its own), removed once the binding has served.
  const folder = mkdtempSync(join(tmpdir(), 'jhyap-kit-'));
  const file = join(folder, 'binding.mjs');
  writeFileSync(file, code);
  const profile = fixture('bga-yaniv');
  Object.assign(profile.rules.reshuffle, { moment: 'when_draw_finds_deck_empty', kept_aside: 'offer_and_throw' });
  const deck = deckFor([['Ac', '2c', '3d', 'Ah', 'X'], ['Kh', 'Kd', 'Ks', 'Qc', 'Jh']], '5h', ['7s']);
  const requests = [
    { seq: 0, cmd: 'hello', protocol: '1.0' },
    { seq: 1, cmd: 'start', profile: fixture('bga-yaniv'), options: {}, seats: 2 },
    { seq: 2, cmd: 'start', profile, options: {}, seats: 2 },
    { seq: 3, cmd: 'deal', deck },
    { seq: 4, cmd: 'act', seat: 0, action: { type: 'throw', cards: ['Ac', '3d'] } },
    { seq: 5, cmd: 'act', seat: 0, action: { type: 'throw', cards: ['X', 'Ac', '2c'] } },
    { seq: 6, cmd: 'act', seat: 0, action: { type: 'pick', from: 'deck' } },
    { seq: 7, cmd: 'act', seat: 1, action: { type: 'call' } },
    { seq: 8, cmd: 'stop' },
  ];
  let done;
  try {
    done = spawnSync(process.execPath, [file], { input: requests.map((r) => JSON.stringify(r)).join('\n') + '\n', encoding: 'utf8' });
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  assert.equal(done.status, 0, done.stderr);
  const answers = done.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(answers[0].engine.name, 'yaniv-sketch');
  assert.deepEqual(answers[1].error, { code: 'unsupported_profile', message: 'rules.reshuffle.moment: "when_deck_emptied" is not implemented by this engine (it plays "when_draw_finds_deck_empty")' });
  assert.deepEqual(answers[3].events[1], { type: 'dealt', hands: [['Ac', 'Ah', '2c', '3d', 'X'], ['Jh', 'Qc', 'Kd', 'Kh', 'Ks']], turned_up: '5h', deck_size: 43 });
  assert.equal(answers[4].error?.code, 'illegal_throw', JSON.stringify(answers[4]));
  assert.deepEqual(answers[5].events, [{ type: 'thrown', seat: 0, cards: ['X', 'Ac', '2c'], kind: 'run' }]);
  assert.deepEqual(answers[6].events, [{ type: 'picked', seat: 0, from: 'deck', card: '7s' }, { type: 'out_of_play', cards: ['5h'] }]);
  assert.equal(answers[7].error.code, 'call_over_limit');
  assert.deepEqual(answers[8], { seq: 8, ok: true });
});
