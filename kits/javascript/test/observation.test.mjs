// The observation hooks: a binding reports what its engine decided, the kit answers with the
// engine's value (state, events) or follows it, and hello says which state fields the kit
// still keeps (the Python kit's observed_* hooks; docs/kit.md, "Observation hooks").
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OBSERVATIONS, STATE_FIELDS, kitKeptFields } from '../jhyap-kit.mjs';
import { ProfileEngine, deckFor, fixture, session } from './profile-engine.mjs';

const HANDS = [['Ac', '2c', '3c', 'Ad', 'X'], ['Kh', 'Kd', 'Ks', 'Qc', 'Jh']];

/** The profile's rules, with every observation hook answering a set value. */
class Reporting extends ProfileEngine {
  static NAME = 'reporting';

  beginGame(rules, seats) {
    super.beginGame(rules, seats);
    this.asked = [];
    this.starter = 1;
    this.gameOver = false;
  }

  observedHands() { this.asked.push('hands'); return [['Kc', 'Ac'], []]; }

  observedStarter() { this.asked.push('starter'); return this.starter; }

  observedPhase() { return 'pick'; }

  observedGameOver() { this.asked.push('gameOver'); return this.gameOver; }

  observedWinners() { this.asked.push('winners'); return [1]; }

  observedScores() { return [7, 8]; }

  observedThrow() { this.asked.push('throw'); return ['3c', '2c', 'Ac']; }

  observedDeck() { return ['9c', '9h']; }
}

/** The same hooks, each answering by a promise. */
class AsyncReporting extends Reporting {}
for (const hook of Object.keys(OBSERVATIONS)) {
  AsyncReporting.prototype[hook] = function later() {
    return Promise.resolve(Reporting.prototype[hook].call(this));
  };
}

async function table(Engine = Reporting) {
  const t = await session(Engine);
  t.engine = t.session.backend;
  assert.deepEqual(await t.send({ cmd: 'start', profile: fixture('bga-yaniv'), seats: 2 }), { seq: 0, ok: true, events: [] });
  t.ask = async (request) => {
    const answer = await t.send(request);
    assert.equal(answer.ok, true, JSON.stringify(answer.error));
    return answer;
  };
  t.state = async () => (await t.ask({ cmd: 'state' })).state;
  return t;
}

test('hello lists the fields the kit keeps by the hooks a binding implements', () => {
  assert.deepEqual(Reporting.observedHooks(), Object.keys(OBSERVATIONS));
  assert.deepEqual(Reporting.info().kitKeptFields, ['round', 'seats', 'active', 'eliminated', 'to_act',
    'pickable', 'multi_throwers', 'out_of_play', 'turns_taken', 'options', 'last_round']);
  assert.deepEqual(ProfileEngine.observedHooks(), []);
  assert.deepEqual(kitKeptFields([]), STATE_FIELDS.filter((f) => !['offer_kind', 'scores'].includes(f)));
  assert.deepEqual(kitKeptFields(['observedHands', 'observedStarter']).filter((f) => ['hands', 'hand_values', 'starter', 'dealer', 'phase'].includes(f)), ['phase']);
});

for (const Engine of [Reporting, AsyncReporting]) {
  const hooks = Engine === AsyncReporting ? 'async hooks' : 'hooks';

  test(`the state reports the engine's hands, scores, deck and phase (${hooks})`, async () => {
    const t = await table(Engine);
    const dealt = (await t.ask({ cmd: 'deal', deck: deckFor(HANDS, '9d') })).events[1];
    assert.deepEqual(dealt.hands, [['Ac', 'Kc'], []]); // canonical order
    const state = await t.state();
    assert.deepEqual([state.hands, state.hand_values], [[['Ac', 'Kc'], []], [11, 0]]);
    assert.deepEqual([state.scores, state.deck, state.deck_size, state.phase], [[7, 8], ['9c', '9h'], 2, 'pick']);
    // The kit's own bookkeeping goes on: seat 0 still holds its dealt cards for the kit.
    assert.deepEqual([state.to_act, state.turns_taken], [0, 0]);
  });

  test(`the kit lays the throw as the engine lays it (${hooks})`, async () => {
    const t = await table(Engine);
    await t.ask({ cmd: 'deal', deck: deckFor(HANDS, '9d') });
    const thrown = await t.ask({ cmd: 'act', seat: 0, action: { type: 'throw', cards: ['Ac', '2c', '3c'] } });
    assert.deepEqual(thrown.events, [{ type: 'thrown', seat: 0, cards: ['3c', '2c', 'Ac'], kind: 'run' }]);
    assert.deepEqual((await t.state()).thrown, ['3c', '2c', 'Ac']);
  });

  test(`the kit follows the engine's next starter, game end and winners (${hooks})`, async () => {
    const t = await table(Engine);
    await t.ask({ cmd: 'deal', deck: deckFor(HANDS, '9d') });
    t.engine.asked = [];
    const ended = (await t.ask({ cmd: 'act', seat: 0, action: { type: 'call' } })).events;
    assert.deepEqual(ended.map((e) => e.type), ['called', 'round_ended']);
    assert.deepEqual(t.engine.asked, ['gameOver', 'starter']); // the hand scored, then who starts next
    assert.equal((await t.state()).starter, 1);
    const started = (await t.ask({ cmd: 'deal', deck: deckFor(HANDS, '9d') })).events[0];
    assert.deepEqual([started.starter, started.turn_order], [1, [1, 0]]);
    t.engine.gameOver = true;
    t.engine.asked = [];
    const over = (await t.ask({ cmd: 'act', seat: 1, action: { type: 'call' } })).events;
    assert.deepEqual(t.engine.asked, ['gameOver', 'winners', 'starter']);
    assert.deepEqual([over.at(-1).type, over.at(-1).winners], ['game_ended', [1]]);
    assert.deepEqual((await t.state()).result.winners, [1]);
  });
}

test("a starter that is no seat is the binding's error, and leaves the table as it was", async () => {
  const t = await table();
  await t.ask({ cmd: 'deal', deck: deckFor(HANDS, '9d') });
  t.engine.starter = 2;
  const reply = t.send({ cmd: 'act', seat: 0, action: { type: 'call' } });
  assert.equal(reply.error.code, 'internal_error');
  assert.match(reply.error.message, /^Error: observedStarter\(\) answered 2: no seat of this table/);
  assert.equal((await t.state()).to_act, 0);
});

test("a binding without observation hooks keeps the kit's values", async () => {
  const t = await table(ProfileEngine);
  await t.ask({ cmd: 'deal', deck: deckFor(HANDS, '9d') });
  const state = await t.state();
  assert.deepEqual([state.hands[0], state.scores, state.deck_size], [['Ac', 'Ad', '2c', '3c', 'X'], [0, 0], 43]);
});
