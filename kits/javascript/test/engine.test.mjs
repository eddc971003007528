// TrackedEngine: the bookkeeping of a table around an engine's hooks.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { settlement } from '../jhyap-kit.mjs';
import { ProfileEngine, deckFor, fixture, session } from './profile-engine.mjs';

const code = (response) => response.error?.code;
const events = (response) => {
  assert.equal(response.ok, true, JSON.stringify(response.error));
  return response.events;
};

async function table(profile = 'bga-yaniv', seats = 2, options = {}) {
  const t = await session();
  const opened = t.send({ cmd: 'start', profile: fixture(profile), options, seats });
  assert.deepEqual(opened, { seq: 0, ok: true, events: [] });
  t.state = () => t.send({ cmd: 'state' }).state;
  return t;
}

const HANDS = [['Ac', '2c', '3c', '9d', 'X'], ['Kh', 'Kd', 'Ks', 'Qc', 'Jh']];
const DASHAIN = [['Ac', '2c', '3c', '9d', 'Qs'], ['Kh', 'Kd', 'Ks', 'Qc', 'Jh']];

test('start: the profile, then option names, then values, then seats; a refused start keeps the table', async () => {
  const { send } = await table('dashain', 3);
  assert.equal(code(send({ cmd: 'start', profile: fixture('dashain'), options: { no_such_option: 1, call_limit: '12' }, seats: 3 })), 'unknown_option');
  assert.equal(code(send({ cmd: 'start', profile: fixture('dashain'), options: { call_limit: '10' }, seats: 9 })), 'invalid_option_value');
  assert.equal(code(send({ cmd: 'start', profile: fixture('dashain'), seats: 9 })), 'invalid_seats');
  assert.equal(code(send({ cmd: 'start', profile: fixture('dashain'), seats: 1 })), 'invalid_seats');
  const strange = fixture('dashain');
  strange.rules.deal.order = 'three_at_a_time';
  assert.deepEqual(send({ cmd: 'start', profile: strange, options: { no_such_option: 1 }, seats: 9 }).error, {
    code: 'unsupported_profile',
    message: 'rules.deal.order: "three_at_a_time" is not implemented by this engine (it plays "one_at_a_time_from_starter")',
  });
  strange.rules.deal.order = 'one_at_a_time_from_starter';
  strange.rules.slapdown = true;
  assert.equal(send({ cmd: 'start', profile: strange, seats: 3 }).error.message, 'rules.slapdown: this engine does not implement this rule parameter');
  const state = send({ cmd: 'state' }).state;
  assert.deepEqual([state.phase, state.seats, state.round], ['awaiting_deal', 3, 0]);
});

test('an option the engine does not implement is unsupported_option, named', async () => {
  class OnePack extends ProfileEngine {
    static RULES = { ...ProfileEngine.RULES, 'deck.packs_by_seats': [[]] };
  }
  const { send } = await session(OnePack);
  assert.equal(send({ cmd: 'start', profile: fixture('bga-yaniv'), options: {}, seats: 2 }).ok, true);
  assert.deepEqual(send({ cmd: 'start', profile: fixture('bga-yaniv'), options: { packs: 'two' }, seats: 2 }).error, {
    code: 'unsupported_option',
    message: 'option packs: rules.deck.packs_by_seats: [{"from_seats":2,"packs":2}] is not implemented by this engine (it plays [])',
  });
  class NoOptions extends ProfileEngine {
    static OPTIONS = ['call_limit'];
  }
  const other = await session(NoOptions);
  assert.deepEqual(other.send({ cmd: 'start', profile: fixture('bga-yaniv'), options: { elimination: 100 }, seats: 2 }).error,
    { code: 'unsupported_option', message: 'this engine has no option elimination' });
});

test('deal: the deck dealt one card at a time from the starter, then the turned-up card', async () => {
  const t = await table();
  const deck = deckFor(HANDS, '5h', ['7s', '8s']);
  assert.deepEqual(events(t.send({ cmd: 'deal', deck })), [
    { type: 'round_started', round: 1, dealer: null, starter: 0, turn_order: [0, 1] },
    { type: 'dealt', hands: [['Ac', '2c', '3c', '9d', 'X'], ['Jh', 'Qc', 'Kd', 'Kh', 'Ks']], turned_up: '5h', deck_size: 43 },
  ]);
  const s = t.state();
  assert.deepEqual(s.deck.slice(0, 2), ['7s', '8s']);
  assert.deepEqual([s.phase, s.to_act, s.offer, s.offer_kind, s.pickable, s.hand_values], ['call_or_throw', 0, ['5h'], 'single', ['5h'], [15, 50]]);
  assert.equal(code(t.send({ cmd: 'deal', deck })), 'wrong_phase');
});

test('deal: a deck that is not the table\'s cards is invalid_deck and changes nothing', async () => {
  const t = await table();
  const deck = deckFor(HANDS, '5h');
  assert.equal(code(t.send({ cmd: 'deal', deck: deck.slice(1) })), 'invalid_deck');
  assert.equal(code(t.send({ cmd: 'deal', deck: [...deck.slice(1), '2c'] })), 'invalid_deck');
  assert.equal(t.state().phase, 'awaiting_deal');
});

test('deal (protocol 1.1): the layout is used as given, and checked against the deck', async () => {
  const t = await table();
  const deck = deckFor(HANDS, '5h');
  const stock = deck.slice(11);
  const laid = { hands: [['X', 'Ks', 'Ac', '2c', '3c'], ['Kh', 'Kd', '9d', 'Qc', 'Jh']], turned_up: '5h', stock };
  assert.equal(code(t.send({ cmd: 'deal', deck, ...laid, hands: [laid.hands[0]] })), 'invalid_deck');
  assert.equal(code(t.send({ cmd: 'deal', deck, ...laid, turned_up: 'Ac' })), 'invalid_deck');
  assert.equal(code(t.send({ cmd: 'deal', deck, ...laid, hands: 'none' })), 'bad_request');
  assert.equal(code(t.send({ cmd: 'deal', deck, ...laid, turned_up: 'Zz' })), 'invalid_card');
  const dealt = events(t.send({ cmd: 'deal', deck, ...laid }))[1];
  assert.deepEqual(dealt.hands, [['Ac', '2c', '3c', 'Ks', 'X'], ['9d', 'Jh', 'Qc', 'Kd', 'Kh']]);
});

test('deal.first_offer none: no card turned up, the first pick from the deck only, the first throw the offer', async () => {
  const profile = fixture('bga-yaniv');
  profile.rules.deal.first_offer = 'none';
  const t = await session();
  t.send({ cmd: 'start', profile, options: {}, seats: 2 });
  t.state = () => t.send({ cmd: 'state' }).state;
  const deck = deckFor(HANDS, '5h', ['7s', '8s']);
  const stock = deck.slice(10);
  const laid = { hands: [['X', 'Ks', 'Ac', '2c', '3c'], ['Kh', 'Kd', '9d', 'Qc', 'Jh']], turned_up: '5h', stock: deck.slice(11) };
  assert.equal(code(t.send({ cmd: 'deal', deck, ...laid })), 'invalid_deck');
  assert.deepEqual(events(t.send({ cmd: 'deal', deck, ...laid, turned_up: null, stock }))[1], {
    type: 'dealt', hands: [['Ac', '2c', '3c', 'Ks', 'X'], ['9d', 'Jh', 'Qc', 'Kd', 'Kh']], turned_up: null, deck_size: 44,
  });
  let s = t.state();
  assert.deepEqual([s.offer, s.offer_kind, s.pickable, s.deck[0]], [[], null, [], '5h']);
  events(t.send({ cmd: 'act', seat: 0, action: { type: 'throw', cards: ['Ks'] } }));
  assert.deepEqual(t.send({ cmd: 'legal' }).legal.picks, [{ from: 'deck' }]);
  const before = t.state();
  assert.equal(code(t.send({ cmd: 'act', seat: 0, action: { type: 'pick', from: 'offer', card: 'Ks' } })), 'card_not_on_offer');
  assert.deepEqual(t.state(), before);
  assert.deepEqual(events(t.send({ cmd: 'act', seat: 0, action: { type: 'pick', from: 'deck' } })), [
    { type: 'picked', seat: 0, from: 'deck', card: '5h' },
  ]);
  s = t.state();
  assert.deepEqual([s.offer, s.offer_kind, s.out_of_play], [['Ks'], 'single', []]);
});

test('a turn: throw, pick, the offer and what goes out of play', async () => {
  const t = await table();
  t.send({ cmd: 'deal', deck: deckFor(HANDS, '5h', ['7s', '8s']) });
  assert.equal(code(t.send({ cmd: 'act', seat: 1, action: { type: 'throw', cards: ['Kh'] } })), 'not_your_turn');
  assert.equal(code(t.send({ cmd: 'act', seat: 2, action: { type: 'call' } })), 'invalid_seat');
  assert.equal(code(t.send({ cmd: 'act', seat: 0, action: { type: 'pick', from: 'deck' } })), 'wrong_phase');
  assert.equal(code(t.send({ cmd: 'act', seat: 0, action: { type: 'throw', cards: ['Kh'] } })), 'card_not_in_hand');
  assert.equal(code(t.send({ cmd: 'act', seat: 0, action: { type: 'throw', cards: ['Ac', 'Ac'] } })), 'illegal_throw');
  assert.equal(code(t.send({ cmd: 'act', seat: 0, action: { type: 'throw', cards: [] } })), 'illegal_throw');
  assert.equal(code(t.send({ cmd: 'act', seat: 0, action: { type: 'throw', cards: ['Ac', '9d'] } })), 'illegal_throw');
  assert.equal(code(t.send({ cmd: 'act', seat: 0, action: { type: 'call' } })), 'call_over_limit');
  assert.equal(code(t.send({ cmd: 'act', seat: 0, action: { type: 'timeout' } })), 'timer_off');
  const before = t.state();
  assert.deepEqual(events(t.send({ cmd: 'act', seat: 0, action: { type: 'throw', cards: ['Ac', 'X', '3c', '2c'] } })),
    [{ type: 'thrown', seat: 0, cards: ['Ac', 'X', '3c', '2c'], kind: 'run' }]);
  let s = t.state();
  assert.deepEqual([s.phase, s.thrown, s.hands[0], s.multi_throwers, s.offer], ['pick', ['Ac', 'X', '3c', '2c'], ['9d'], [0], ['5h']]);
  assert.notDeepEqual(s, before);
  assert.equal(code(t.send({ cmd: 'act', seat: 0, action: { type: 'pick', from: 'offer', card: '7s' } })), 'card_not_on_offer');
  assert.deepEqual(events(t.send({ cmd: 'act', seat: 0, action: { type: 'pick', from: 'deck' } })), [
    { type: 'picked', seat: 0, from: 'deck', card: '7s' },
    { type: 'out_of_play', cards: ['5h'] },
  ]);
  s = t.state();
  assert.deepEqual([s.phase, s.to_act, s.offer, s.offer_kind, s.pickable, s.turns_taken, s.out_of_play, s.deck_size],
    ['call_or_throw', 1, ['Ac', 'X', '3c', '2c'], 'run', ['Ac', '2c'], 1, ['5h'], 42]);
  t.send({ cmd: 'act', seat: 1, action: { type: 'throw', cards: ['Qc'] } });
  assert.equal(code(t.send({ cmd: 'act', seat: 1, action: { type: 'pick', from: 'offer', card: 'X' } })), 'pick_not_allowed');
  assert.deepEqual(t.send({ cmd: 'legal' }).legal, { seat: 1, call: false, throws: [], picks: [{ from: 'deck' }, { from: 'offer', card: 'Ac' }, { from: 'offer', card: '2c' }] });
  assert.deepEqual(events(t.send({ cmd: 'act', seat: 1, action: { type: 'pick', from: 'offer', card: '2c' } })), [
    { type: 'picked', seat: 1, from: 'offer', card: '2c' },
    { type: 'out_of_play', cards: ['Ac', '3c', 'X'] },
  ]);
});

test('legal: the call and every throw, shorter first, then by canonical positions', async () => {
  const t = await table();
  t.send({ cmd: 'deal', deck: deckFor([['4c', '4d', '5c', '6c', 'X'], HANDS[1]], '5h') });
  assert.deepEqual(t.send({ cmd: 'legal' }).legal, {
    seat: 0,
    call: false,
    throws: [
      ['4c'], ['4d'], ['5c'], ['6c'], ['X'],
      ['4c', '4d'],
      ['4c', '5c', '6c'], ['4c', '5c', 'X'], ['4c', '6c', 'X'], ['5c', '6c', 'X'],
      ['4c', '5c', '6c', 'X'],
    ],
    picks: [],
  });
  t.send({ cmd: 'act', seat: 0, action: { type: 'throw', cards: ['4c', '5c', '6c', 'X'] } });
  t.send({ cmd: 'act', seat: 0, action: { type: 'pick', from: 'offer', card: '5h' } });
  assert.equal(t.send({ cmd: 'legal' }).legal.seat, 1);
});

test('legal under throws.run.order ascending lists each run as it must be placed, lowest first', async () => {
  // The default legalThrows asks the binding's refusal about each run in the placing the rule
  // requires: asked in canonical order (4h 6h X), a run the rule places as 4h X 6h was lost.
  const t = await session();
  const profile = fixture('bga-yaniv');
  profile.rules.throws.run.order = 'ascending';
  assert.equal(t.send({ cmd: 'start', profile, options: {}, seats: 2 }).ok, true);
  t.send({ cmd: 'deal', deck: deckFor([['4h', '6h', '9c', 'X', 'X'], HANDS[1]], '5c') });
  const throws = t.send({ cmd: 'legal' }).legal.throws;
  assert.deepEqual(throws.filter((c) => c.includes('4h') && c.includes('6h')), [['4h', 'X', '6h'], ['4h', 'X', '6h', 'X']]);
});

test('a call ends the round: hand values, deltas, scores, the next starter', async () => {
  const t = await table();
  t.send({ cmd: 'deal', deck: deckFor([['Ac', '2c', '3d', 'Ah', 'X'], HANDS[1]], '5h') });
  const ended = events(t.send({ cmd: 'act', seat: 0, action: { type: 'call' } }));
  assert.deepEqual(ended, [
    { type: 'called', seat: 0, value: 7 },
    { type: 'round_ended', round: 1, outcome: 'won_call', caller: 0, winner: 0, hand_values: [7, 50], deltas: [0, 50], scores: [0, 50], eliminated: [] },
  ]);
  const s = t.state();
  assert.deepEqual([s.phase, s.to_act, s.starter, s.round, s.scores, s.pickable, s.last_round.outcome], ['round_over', null, 0, 1, [0, 50], ['5h'], 'won_call']);
  assert.equal(t.send({ cmd: 'legal' }).legal, null);
  assert.equal(code(t.send({ cmd: 'act', seat: 1, action: { type: 'call' } })), 'wrong_phase');
  assert.equal(code(t.send({ cmd: 'end_game' })), 'game_not_endable');
  assert.equal(code(t.send({ cmd: 'set_option', name: 'call_limit', value: 9 })), 'option_locked');
  assert.equal(code(t.send({ cmd: 'set_option', name: 'nothing', value: 9 })), 'unknown_option');
});

test('elimination ends the game: winners first in the standings', async () => {
  const t = await table('bga-yaniv', 3, { elimination: 100, score_cut: 'none' });
  const hands = [['Ac', '2c', '3d', 'Ah', 'X'], ['Kh', 'Kd', 'Ks', 'Qc', 'Jh'], ['Ad', '2d', '3h', '4s', 'As']];
  const out = [];
  for (let round = 1; round <= 20; round += 1) {
    const active = t.state().active;
    const deck = deckFor(active.map((s) => hands[s]), '5h');
    if (active.length === 3) {
      t.send({ cmd: 'deal', deck });
    } else {
      // Protocol 1.1: the layout, [] for the seat that is out.
      const laid = { hands: [hands[0], [], hands[2]], turned_up: '5h', stock: deck.slice(11) };
      assert.equal(code(t.send({ cmd: 'deal', deck, ...laid, hands: [hands[0], hands[1], hands[2]] })), 'invalid_deck');
      assert.deepEqual(events(t.send({ cmd: 'deal', deck, ...laid }))[0].turn_order, [0, 2]);
    }
    const evs = events(t.send({ cmd: 'act', seat: 0, action: { type: 'call' } }));
    if (evs[1].eliminated.length) out.push([round, evs[1].eliminated, evs[1].hand_values]);
    if (evs.at(-1).type === 'game_ended') {
      assert.deepEqual(out, [[3, [1], [7, 50, 11]], [10, [2], [7, null, 11]]]);
      assert.deepEqual(evs.at(-1), { type: 'game_ended', winners: [0], standings: [0, 2, 1], scores: [0, 150, 110], eliminated: [1, 2], settlement: null });
      const s = t.state();
      assert.deepEqual([s.phase, s.active, s.eliminated, s.hands[1], s.hand_values[1], s.to_act], ['game_over', [0], [1, 2], [], 0, null]);
      return;
    }
  }
  assert.fail('the game did not end');
});

test('reshuffle when the deck is emptied: the cards out of play, then a new deck', async () => {
  const t = await table();
  t.send({ cmd: 'deal', deck: deckFor(HANDS, '5h') });
  let last;
  for (let turn = 0; turn < 43; turn += 1) {
    const seat = turn % 2;
    const card = t.state().hands[seat][0];
    t.send({ cmd: 'act', seat, action: { type: 'throw', cards: [card] } });
    last = events(t.send({ cmd: 'act', seat, action: { type: 'pick', from: 'deck' } }));
  }
  const s = t.state();
  assert.equal(s.phase, 'awaiting_reshuffle');
  assert.equal(s.out_of_play.length, 43);
  assert.deepEqual(last.at(-1), { type: 'reshuffle_needed', cards: s.out_of_play });
  assert.equal(t.send({ cmd: 'legal' }).legal, null);
  assert.equal(code(t.send({ cmd: 'reshuffle', order: s.out_of_play.slice(1) })), 'invalid_reshuffle');
  const order = [...s.out_of_play].reverse();
  assert.deepEqual(events(t.send({ cmd: 'reshuffle', order })), [{ type: 'reshuffled', deck_size: 43 }]);
  const after = t.state();
  assert.deepEqual([after.phase, after.deck[0], after.out_of_play, after.to_act], ['call_or_throw', order[0], [], 1]);
});

test('reshuffle on the next draw (pickable_and_throw): the waiting draw completes', async () => {
  const doc = fixture('bga-yaniv');
  Object.assign(doc.rules.reshuffle, { moment: 'when_draw_finds_deck_empty', kept_aside: 'pickable_and_throw' });
  const t = await session();
  t.send({ cmd: 'start', profile: doc, seats: 2 });
  t.send({ cmd: 'deal', deck: deckFor(HANDS, '5h') });
  for (let turn = 0; turn < 43; turn += 1) {
    const seat = turn % 2;
    const card = t.send({ cmd: 'state' }).state.hands[seat][0];
    t.send({ cmd: 'act', seat, action: { type: 'throw', cards: [card] } });
    t.send({ cmd: 'act', seat, action: { type: 'pick', from: 'deck' } });
  }
  let s = t.send({ cmd: 'state' }).state;
  assert.deepEqual([s.phase, s.deck_size, s.to_act], ['call_or_throw', 0, 1]);
  t.send({ cmd: 'act', seat: 1, action: { type: 'throw', cards: [s.hands[1][0]] } });
  const waiting = events(t.send({ cmd: 'act', seat: 1, action: { type: 'pick', from: 'deck' } }));
  s = t.send({ cmd: 'state' }).state;
  assert.deepEqual(waiting, [{ type: 'reshuffle_needed', cards: s.out_of_play }]);
  assert.deepEqual([s.phase, s.to_act, s.thrown.length, s.out_of_play.length], ['awaiting_reshuffle', 1, 1, 43]);
  const order = [...s.out_of_play];
  const done = events(t.send({ cmd: 'reshuffle', order }));
  assert.deepEqual(done.slice(0, 2), [{ type: 'reshuffled', deck_size: 43 }, { type: 'picked', seat: 1, from: 'deck', card: order[0] }]);
  assert.equal(t.send({ cmd: 'state' }).state.to_act, 0);
});

test('set_option between hands, a host-ended table and its settlement', async () => {
  const t = await table('dashain', 2);
  assert.deepEqual(events(t.send({ cmd: 'set_option', name: 'call_limit', value: 12 })), [{ type: 'option_changed', name: 'call_limit', value: 12 }]);
  assert.equal(code(t.send({ cmd: 'set_option', name: 'call_limit', value: '12' })), 'invalid_option_value');
  assert.equal(code(t.send({ cmd: 'set_option', name: 'dollars_per_point', value: '0.10' })), 'option_locked');
  assert.deepEqual(t.state().options, { dollars_per_point: '0.05', call_limit: 12, first_round_jhyap: false, turn_timer: 0 });
  assert.deepEqual(events(t.send({ cmd: 'end_game' })), [
    { type: 'game_ended', winners: [], standings: [0, 1], scores: [0, 0], eliminated: [], settlement: [] },
  ]);
  assert.equal(code(t.send({ cmd: 'end_game' })), 'wrong_phase');
  const u = await table('dashain', 2);
  assert.equal(events(u.send({ cmd: 'deal', deck: deckFor(DASHAIN, '5h', [], 0) })).length, 2);
  assert.equal(code(u.send({ cmd: 'act', seat: 0, action: { type: 'call' } })), 'call_too_early');
  assert.equal(code(u.send({ cmd: 'set_option', name: 'call_limit', value: 10 })), 'wrong_phase');
  assert.equal(code(u.send({ cmd: 'end_game' })), 'wrong_phase');
});

test('settlement: the largest debtor pays the largest creditor, or in seat order', () => {
  assert.deepEqual(settlement([39, -39], { dollars_per_point: '0.05' }), [{ from: 1, to: 0, points: 39, dollars: '1.95' }]);
  assert.deepEqual(settlement([30, 10, -25, -15], { dollars_per_point: '1.5' }), [
    { from: 2, to: 0, points: 25, dollars: '37.50' },
    { from: 3, to: 1, points: 10, dollars: '15.00' },
    { from: 3, to: 0, points: 5, dollars: '7.50' },
  ]);
  assert.deepEqual(settlement([-5, 10, -5], { dollars_per_point: '0.10', settlement: 'debtors_pay_creditors_in_seat_order' }), [
    { from: 0, to: 1, points: 5, dollars: '0.50' },
    { from: 2, to: 1, points: 5, dollars: '0.50' },
  ]);
});

test('a timeout throws the highest single and draws (a turn timer on)', async () => {
  const t = await table('dashain', 2, { turn_timer: 30 });
  t.send({ cmd: 'deal', deck: deckFor([['Ac', '2c', 'Td', 'Tc', '9d'], DASHAIN[1]], '5h', ['7s'], 0) });
  assert.deepEqual(events(t.send({ cmd: 'act', seat: 0, action: { type: 'timeout' } })), [
    { type: 'timed_out', seat: 0 },
    { type: 'thrown', seat: 0, cards: ['Td'], kind: 'single' },
    { type: 'picked', seat: 0, from: 'deck', card: '7s' },
    { type: 'out_of_play', cards: ['5h'] },
  ]);
});

test('a refused action changes nothing, even when a hook fails half-way', async () => {
  class Flaky extends ProfileEngine {
    onPick() { throw new Error('lost the card'); }
  }
  const t = await session(Flaky);
  t.send({ cmd: 'start', profile: fixture('bga-yaniv'), seats: 2 });
  t.send({ cmd: 'deal', deck: deckFor(HANDS, '5h') });
  t.send({ cmd: 'act', seat: 0, action: { type: 'throw', cards: ['9d'] } });
  const before = t.send({ cmd: 'state' }).state;
  assert.equal(code(t.send({ cmd: 'act', seat: 0, action: { type: 'pick', from: 'deck' } })), 'internal_error');
  assert.deepEqual(t.send({ cmd: 'state' }).state, before);
});

test('start: the checks a profile passed are made again for one that JSON would write the same', async () => {
  const { send } = await table('dashain', 3);
  const strange = fixture('dashain');
  strange.rules.slapdown = undefined; // left out of JSON text, not out of the rules
  assert.deepEqual(send({ cmd: 'start', profile: strange, seats: 3 }).error, {
    code: 'unsupported_profile', message: 'rules.slapdown: this engine does not implement this rule parameter',
  });
  strange.rules.slapdown = Number.NaN; // null in JSON text
  assert.equal(send({ cmd: 'start', profile: strange, seats: 3 }).error.code, 'unsupported_profile');
  delete strange.rules.slapdown;
  assert.deepEqual(send({ cmd: 'start', profile: strange, seats: 3 }), { seq: 3, ok: true, events: [] });
});

test('a hook failing after the kit edited its lists in place leaves the table as it was', async () => {
  // The deck's last draw ends the hand (round_ends_hands_score): the kit has put the card in
  // the hand and the offer out of play when it asks for the hand values.
  class FailsAtTheEnd extends ProfileEngine {
    handValue(cards) {
      if (this.failing) throw new Error('lost count');
      return super.handValue(cards);
    }
  }
  const doc = fixture('bga-yaniv');
  doc.rules.deck_runs_out = 'round_ends_hands_score';
  const t = await session(FailsAtTheEnd);
  t.send({ cmd: 'start', profile: doc, seats: 2 });
  t.send({ cmd: 'deal', deck: deckFor(HANDS, '5h') });
  for (let turn = 0; turn < 42; turn += 1) {
    const seat = turn % 2;
    t.send({ cmd: 'act', seat, action: { type: 'throw', cards: [t.send({ cmd: 'state' }).state.hands[seat][0]] } });
    events(t.send({ cmd: 'act', seat, action: { type: 'pick', from: 'deck' } }));
  }
  t.send({ cmd: 'act', seat: 0, action: { type: 'throw', cards: [t.send({ cmd: 'state' }).state.hands[0][0]] } });
  const before = t.send({ cmd: 'state' }).state;
  assert.deepEqual([before.deck_size, before.out_of_play.length, before.hands[0].length], [1, 42, 4]);
  t.session.backend.failing = true; // its state asks for the hand values too: not until after
  assert.equal(code(t.send({ cmd: 'act', seat: 0, action: { type: 'pick', from: 'deck' } })), 'internal_error');
  t.session.backend.failing = false;
  assert.deepEqual(t.send({ cmd: 'state' }).state, before);
  const ended = events(t.send({ cmd: 'act', seat: 0, action: { type: 'pick', from: 'deck' } }));
  assert.deepEqual(ended.map((e) => e.type), ['picked', 'out_of_play', 'round_ended']);
});

test('an option value setting a parameter inside a declared subtree is named too', async () => {
  class SetsOfFour extends ProfileEngine {
    static RULES = { ...ProfileEngine.RULES, throws: [{ set: { min: 2, max: 4, jokers_alone: false }, run: { min: 3, ace: 'low' }, order_matters: false, slapdown: 'none' }] };
  }
  const doc = fixture('bga-yaniv');
  doc.options.push({ name: 'set_max', type: 'integer', range: { min: 3, max: 4, step: 1 }, default: 4, sets: 'throws.set.max', locked_when_open: false });
  doc.option_values.set_max = 4;
  const t = await session(SetsOfFour);
  assert.equal(t.send({ cmd: 'start', profile: doc, options: { set_max: 4 }, seats: 2 }).ok, true);
  assert.deepEqual(t.send({ cmd: 'set_option', name: 'set_max', value: 3 }).error, {
    code: 'unsupported_option',
    message: 'option set_max: rules.throws: {"set":{"min":2,"max":3,"jokers_alone":false},"run":{"min":3,"ace":"low"},"order_matters":false,"slapdown":"none"} is not implemented by this engine (it plays {"set":{"min":2,"max":4,"jokers_alone":false},"run":{"min":3,"ace":"low"},"order_matters":false,"slapdown":"none"})',
  });
  assert.equal(t.send({ cmd: 'state' }).state.options.set_max, 4);
  doc.rules.throws.run.min = 4;
  assert.equal(t.send({ cmd: 'start', profile: doc, options: { set_max: 4 }, seats: 2 }).error.code, 'unsupported_profile');
});

test('pick.multi_throw_scope: turn opens the offer for the pick of that turn only; hand and game for later turns', async () => {
  for (const [scope, afterPick, pick] of [['turn', [], 'pick_not_allowed'], ['hand', [0], null], ['game', [0], null]]) {
    const t = await session();
    const profile = fixture('bga-yaniv');
    Object.assign(profile.rules.pick, { only_after_multi_throw: true, multi_throw_scope: scope });
    assert.equal(t.send({ cmd: 'start', profile, options: {}, seats: 2 }).ok, true);
    const state = () => t.send({ cmd: 'state' }).state;
    events(t.send({ cmd: 'deal', deck: deckFor(HANDS, '5h', ['7s', '8s']) }));
    events(t.send({ cmd: 'act', seat: 0, action: { type: 'throw', cards: ['Ac', 'X', '3c', '2c'] } }));
    assert.deepEqual(state().multi_throwers, [0], scope);
    events(t.send({ cmd: 'act', seat: 0, action: { type: 'pick', from: 'deck' } }));
    assert.deepEqual(state().multi_throwers, afterPick, scope);
    events(t.send({ cmd: 'act', seat: 1, action: { type: 'throw', cards: ['Kh'] } }));
    events(t.send({ cmd: 'act', seat: 1, action: { type: 'pick', from: 'deck' } }));
    events(t.send({ cmd: 'act', seat: 0, action: { type: 'throw', cards: ['9d'] } }));
    const taken = t.send({ cmd: 'act', seat: 0, action: { type: 'pick', from: 'offer', card: 'Kh' } });
    assert.equal(code(taken) ?? null, pick, scope);
    if (pick !== null) assert.equal(taken.error.message, 'thrown cards may be picked only after throwing two or more cards together this turn');
  }
});
