// Async hooks (every hook may answer with a promise) and the LoopDriver (an engine written
// as one async game loop).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LoopAbandoned, LoopDriver, Refused, Session, lineServer } from '../jhyap-kit.mjs';
import { AsyncProfileEngine, ProfileEngine, deckFor, fixture } from './profile-engine.mjs';

const HANDS = [['Ac', '2c', '3c', '4c', 'X'], ['Kh', 'Kd', 'Ks', 'Qc', 'Jh']];

// A hand with refusals, a run, picks from the deck and the offer, legal, a call and state.
const REQUESTS = [
  { cmd: 'hello', protocol: '1.2' },
  { cmd: 'start', profile: fixture('bga-yaniv'), options: {}, seats: 2 },
  { cmd: 'deal', deck: deckFor(HANDS, '5h', ['7s', '8s']) },
  { cmd: 'act', seat: 0, action: { type: 'throw', cards: ['Ac', '3c'] } },
  { cmd: 'act', seat: 0, action: { type: 'call' } },
  { cmd: 'legal' },
  { cmd: 'act', seat: 0, action: { type: 'throw', cards: ['Ac', '2c', '3c', '4c'] } },
  { cmd: 'act', seat: 0, action: { type: 'pick', from: 'offer', card: '7s' } },
  { cmd: 'act', seat: 0, action: { type: 'pick', from: 'deck' } },
  { cmd: 'act', seat: 1, action: { type: 'throw', cards: ['Qc'] } },
  { cmd: 'legal' },
  { cmd: 'act', seat: 1, action: { type: 'pick', from: 'offer', card: '4c' } },
  { cmd: 'act', seat: 0, action: { type: 'call' } },
  { cmd: 'state' },
].map((r, seq) => ({ seq, ...r }));

test('async hooks: every answer is a promise of what the same hooks answer synchronously', async () => {
  const sync = new Session(new ProfileEngine(), ProfileEngine.info());
  const later = new Session(new AsyncProfileEngine(), AsyncProfileEngine.info());
  const expected = REQUESTS.map((r) => sync.handle(r));
  assert.ok(expected.every((a) => !(a instanceof Promise)));
  const answers = [];
  for (const r of REQUESTS) answers.push(await later.handle(r));
  expected[0].engine.name = 'profile-engine-async';
  // The async binding wraps pickablePositions: the pickable cards are the engine's, not kit-kept.
  expected[0].supports.kit_kept_fields = expected[0].supports.kit_kept_fields.filter((f) => f !== 'pickable');
  assert.deepEqual(answers, expected);
  assert.deepEqual(answers.map((a) => a.error?.code ?? 'ok'), [
    'ok', 'ok', 'ok', 'illegal_throw', 'call_over_limit', 'ok', 'ok', 'card_not_on_offer', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok']);
  assert.deepEqual(answers[12].events.map((e) => e.type), ['called', 'round_ended']);
  assert.deepEqual(answers[12].events[0], { type: 'called', seat: 0, value: 7 });
  assert.deepEqual(answers[12].events[1].hand_values, [7, 44]);
});

test('async hooks: the lines are answered in order, and end() settles once all are', async () => {
  const out = [];
  const s = new Session(new AsyncProfileEngine(), AsyncProfileEngine.info());
  const server = lineServer(s, (line) => out.push(JSON.parse(line)));
  server.push(Buffer.from(REQUESTS.map((r) => `${JSON.stringify(r)}\n`).join('')));
  assert.ok(out.length < REQUESTS.length);
  await server.end();
  assert.deepEqual(out.map((a) => a.seq), REQUESTS.map((r) => r.seq));
});

test('async hooks: a rejected hook is internal_error and leaves the table as it was', async () => {
  class Failing extends AsyncProfileEngine {
    onPick(seat, card, source) {
      return card === '7s' ? Promise.reject(new Error('the engine lost the card')) : super.onPick(seat, card, source);
    }

    refusal(seat, action) {
      return Promise.resolve(action.type === 'throw' && action.cards.includes('3c') && action.cards.length === 2 ? { code: 'illegal_throw', message: 'not so' } : null);
    }
  }
  const s = new Session(new Failing(), Failing.info());
  for (const r of REQUESTS.slice(1, 3)) assert.equal((await s.handle(r)).ok, true);
  assert.deepEqual((await s.handle(REQUESTS[3])).error, { code: 'illegal_throw', message: 'not so' });
  assert.equal((await s.handle(REQUESTS[6])).ok, true);
  const before = (await s.handle({ seq: 50, cmd: 'state' })).state;
  const failed = await s.handle(REQUESTS[8]);
  assert.equal(failed.error.code, 'internal_error');
  assert.match(failed.error.message, /the engine lost the card/);
  assert.deepEqual((await s.handle({ seq: 51, cmd: 'state' })).state, before);
});

// A game loop in the style of many engines: it deals, then asks each seat for a move in
// turn until someone says "stop"; a move it does not like is asked again.
async function gameLoop(driver, log) {
  const deck = await driver.wait(null, 'deal');
  log.push(`dealt ${deck}`);
  for (let seat = 0; ; seat = 1 - seat) {
    let move = await driver.wait(seat, 'turn');
    while (typeof move !== 'string') {
      driver.refuse(`seat ${seat}: a move is a word`);
      move = await driver.wait(seat, 'turn');
    }
    log.push(`${seat} ${move}`);
    if (move === 'stop') return;
  }
}

test('LoopDriver: moves go to the loop; a re-asked decision is Refused; the end is seen', async () => {
  const driver = new LoopDriver({ refused: { turn: 'illegal_throw' }, timeout: 5 });
  const log = [];
  assert.equal(driver.ended, true);
  await driver.start((d) => gameLoop(d, log));
  assert.deepEqual(driver.waiting(), [null, 'deal']);
  await driver.send(null, 'deal', 'AcKd');
  assert.deepEqual(driver.waiting(), [0, 'turn']);
  await assert.rejects(driver.send(1, 'turn', 'x'), /the game loop waits for turn of seat 0, not turn of seat 1/);
  const refused = await driver.send(0, 'turn', 7).catch((err) => err);
  assert.ok(refused instanceof Refused);
  assert.deepEqual([refused.code, refused.message], ['illegal_throw', 'seat 0: a move is a word']);
  await driver.send(0, 'turn', 'throw');
  await driver.send(1, 'turn', 'stop');
  assert.equal(driver.ended, true);
  assert.equal(driver.waiting(), null);
  assert.deepEqual(log, ['dealt AcKd', '0 throw', '1 stop']);
  assert.throws(() => driver.wait(0, 'turn'), /for the game loop itself/);
});

test('LoopDriver: a new start abandons the old loop; a failing loop is reported', async () => {
  const driver = new LoopDriver({ timeout: 5 });
  let abandoned = null;
  await driver.start(async (d) => {
    try {
      await d.wait(null, 'deal');
    } catch (err) {
      abandoned = err;
    }
  });
  await driver.start((d) => gameLoop(d, []));
  assert.ok(abandoned instanceof LoopAbandoned);
  assert.deepEqual(driver.waiting(), [null, 'deal']);
  await assert.rejects(driver.start(async () => { throw new Error('no cards'); }), /the game loop failed: Error: no cards/);
  assert.equal(driver.ended, true);
});
