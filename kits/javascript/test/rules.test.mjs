// Rule values the kit plays as the reference engine does (game_end one_hand and
// first_past_target, throws.laid by_rank, deck.ranks_left_out, the held-back offer of
// reshuffle when_deck_emptied with pickable_and_throw), and what it refuses by name.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ANY, ascendingRun, fullDeck, jokerAloneRefused, laidCards, legalThrowsOf, outOfOrder,
  profileHandValue, readRules, runPositions, singleRefused,
} from '../jhyap-kit.mjs';
import { ProfileEngine, deckFor, fixture, session } from './profile-engine.mjs';

const HANDS = [['Ac', '2c', '3c', '4c', 'X'], ['Kh', 'Kd', 'Ks', 'Qc', 'Jh']];

function yaniv(change) {
  const profile = fixture('bga-yaniv');
  profile.options = []; // the rules as changed, no host option setting them back
  change(profile.rules);
  return profile;
}

async function open(profile, Engine = ProfileEngine) {
  const t = await session(Engine);
  const opened = t.send({ cmd: 'start', profile, options: {}, seats: 2 });
  assert.deepEqual(opened, { seq: 0, ok: true, events: [] }, JSON.stringify(opened));
  return t;
}

// Seat 0 throws its run and draws 7s (X 7s: 7, under the limit); seat 1 throws Qc and draws
// 8s (48); seat 0 calls.
function playHand(send) {
  send({ cmd: 'deal', deck: deckFor(HANDS, '5h', ['7s', '8s']) });
  send({ cmd: 'act', seat: 0, action: { type: 'throw', cards: ['Ac', '2c', '3c', '4c'] } });
  send({ cmd: 'act', seat: 0, action: { type: 'pick', from: 'deck' } });
  send({ cmd: 'act', seat: 1, action: { type: 'throw', cards: ['Qc'] } });
  send({ cmd: 'act', seat: 1, action: { type: 'pick', from: 'deck' } });
  return send({ cmd: 'act', seat: 0, action: { type: 'call' } });
}

test('game_end one_hand: the game ends with its first hand; no second deal', async () => {
  const { send } = await open(yaniv((r) => { r.game_end = { kind: 'one_hand', rounds: null, out_above: null, reaching_is_out: false }; }));
  const called = playHand(send);
  assert.deepEqual(called.events.map((e) => e.type), ['called', 'round_ended', 'game_ended']);
  assert.deepEqual(called.events[2], { type: 'game_ended', winners: [0], standings: [0, 1], scores: [0, 48], eliminated: [], settlement: null });
  assert.equal(send({ cmd: 'deal', deck: deckFor(HANDS, '5h') }).error.code, 'wrong_phase');
  assert.equal(send({ cmd: 'end_game' }).error.code, 'game_not_endable');
});

test('game_end first_past_target: a total above the target ends the game, the lowest wins', async () => {
  const target = (outAbove, reaching) => yaniv((r) => { r.game_end = { kind: 'first_past_target', rounds: null, out_above: outAbove, reaching_is_out: reaching }; });
  let { send } = await open(target(40, false));
  assert.deepEqual(playHand(send).events[2], { type: 'game_ended', winners: [0], standings: [0, 1], scores: [0, 48], eliminated: [], settlement: null });
  ({ send } = await open(target(48, false)));
  assert.deepEqual(playHand(send).events.map((e) => e.type), ['called', 'round_ended']);
  assert.equal(send({ cmd: 'state' }).state.phase, 'round_over');
  ({ send } = await open(target(48, true)));
  assert.deepEqual(playHand(send).events.map((e) => e.type), ['called', 'round_ended', 'game_ended']);
});

test('throws.laid by_rank: a run lies by the ranks its cards stand at, a set in canonical order', async () => {
  const { send } = await open(yaniv((r) => { r.throws.laid = 'by_rank'; }));
  send({ cmd: 'deal', deck: deckFor(HANDS, '5h', ['7s', '8s']) });
  assert.deepEqual(send({ cmd: 'act', seat: 0, action: { type: 'throw', cards: ['3c', 'X', 'Ac', '2c'] } }).events,
    [{ type: 'thrown', seat: 0, cards: ['Ac', '2c', '3c', 'X'], kind: 'run' }]);
  send({ cmd: 'act', seat: 0, action: { type: 'pick', from: 'deck' } });
  assert.deepEqual(send({ cmd: 'state' }).state.pickable, ['Ac', 'X']);
  assert.deepEqual(send({ cmd: 'act', seat: 1, action: { type: 'throw', cards: ['Ks', 'Kd', 'Kh'] } }).events,
    [{ type: 'thrown', seat: 1, cards: ['Kd', 'Kh', 'Ks'], kind: 'set' }]);
});

test('deck.ranks_left_out: the table deals its 48 cards (plus jokers), and deck.cards must count them', async () => {
  const noKings = yaniv((r) => { r.deck.cards = 48; r.deck.ranks_left_out = ['K']; });
  const { send } = await open(noKings);
  assert.deepEqual(send({ cmd: 'deal', deck: deckFor(HANDS, '5h') }).error, {
    code: 'invalid_deck', message: "deal needs the table's 50 cards: 1 pack(s) of 48 with 2 joker(s) each" });
  const hands = [['Ac', '2c', '3c', '4c', 'X'], ['Qh', 'Qd', 'Qs', 'Qc', 'Jh']];
  const dealt = hands[0].flatMap((c, i) => [c, hands[1][i]]);
  const rest = fullDeck(1, 2, ['K']);
  for (const c of [...dealt, '5h']) rest.splice(rest.indexOf(c), 1);
  const answer = send({ cmd: 'deal', deck: [...dealt, '5h', ...rest] });
  assert.deepEqual(answer.events[1], { type: 'dealt', hands: [['Ac', '2c', '3c', '4c', 'X'], ['Jh', 'Qc', 'Qd', 'Qh', 'Qs']], turned_up: '5h', deck_size: 39 });
  const t = await session();
  const wrong = yaniv((r) => { r.deck.ranks_left_out = ['K']; });
  assert.deepEqual(t.send({ cmd: 'start', profile: wrong, options: {}, seats: 2 }).error, {
    code: 'invalid_profile', message: 'rules.deck.cards: 52, but a pack without K holds 48 cards' });
});

test('reshuffle when_deck_emptied with kept_aside pickable_and_throw: the takeable cards wait, then go out of play', async () => {
  const profile = yaniv((r) => { r.reshuffle.kept_aside = 'pickable_and_throw'; r.hand_size = 20; r.seats.max = 2; });
  const { send } = await open(profile);
  const deck = fullDeck(1, 2);
  send({ cmd: 'deal', deck });
  let state = send({ cmd: 'state' }).state;
  assert.equal(state.deck_size, 13);
  for (;;) {
    const seat = state.to_act;
    assert.equal(send({ cmd: 'act', seat, action: { type: 'throw', cards: [state.hands[seat][0]] } }).ok, true);
    state = send({ cmd: 'state' }).state;
    if (state.deck_size === 1) break;
    send({ cmd: 'act', seat, action: { type: 'pick', from: 'deck' } });
    state = send({ cmd: 'state' }).state;
  }
  const [offer, thrown, outOfPlay] = [state.offer, state.thrown, state.out_of_play];
  assert.equal(offer.length, 1);
  const last = send({ cmd: 'act', seat: state.to_act, action: { type: 'pick', from: 'deck' } });
  assert.deepEqual(last.events, [
    { type: 'picked', seat: state.to_act, from: 'deck', card: state.deck[0] },
    { type: 'reshuffle_needed', cards: outOfPlay },
  ]);
  const waiting = send({ cmd: 'state' }).state;
  assert.deepEqual([waiting.phase, waiting.offer, waiting.thrown, waiting.out_of_play], ['awaiting_reshuffle', offer, thrown, outOfPlay]);
  const reshuffled = send({ cmd: 'reshuffle', order: outOfPlay });
  assert.deepEqual(reshuffled.events, [{ type: 'reshuffled', deck_size: outOfPlay.length }, { type: 'out_of_play', cards: offer }]);
  const after = send({ cmd: 'state' }).state;
  assert.deepEqual([after.phase, after.offer, after.thrown, after.out_of_play], ['call_or_throw', thrown, [], offer]);
});

test('throws.slapdown is refused by name: the slapdown action is not in the kit\'s procedure', async () => {
  class Widened extends ProfileEngine {
    static RULES = { ...ProfileEngine.RULES, 'throws.slapdown': ANY };
  }
  const t = await session(Widened);
  const slapping = yaniv((r) => { r.throws.slapdown = 'same_rank_as_single'; });
  assert.deepEqual(t.send({ cmd: 'start', profile: slapping, options: {}, seats: 2 }).error, {
    code: 'unsupported_profile',
    message: 'rules.throws.slapdown: "same_rank_as_single" is not played by jhyap-kit (it plays "none")',
  });
  const off = yaniv((r) => { r.throws.slapdown = 'none'; });
  assert.equal(t.send({ cmd: 'start', profile: off, options: {}, seats: 2 }).ok, true);
  const deck = t.send({ cmd: 'state' }).state.deck;
  assert.equal(t.send({ cmd: 'act', seat: 0, action: { type: 'slapdown', card: 'Ac' } }).error.code, 'wrong_phase');
  assert.equal(deck.length, 0);
});

test("a value the kit does not play is refused by name, whatever the binding's RULES declare", async () => {
  class Widened extends ProfileEngine {
    static RULES = {
      ...Object.fromEntries(Object.entries(ProfileEngine.RULES).filter(([path]) => !path.startsWith('reshuffle.'))),
      reshuffle: ANY,
    };
  }
  const t = await session(Widened);
  const strange = yaniv((r) => { r.reshuffle.moment = 'at_the_end_of_time'; });
  assert.deepEqual(t.send({ cmd: 'start', profile: strange, options: {}, seats: 2 }).error, {
    code: 'unsupported_profile',
    message: 'rules.reshuffle.moment: "at_the_end_of_time" is not played by jhyap-kit (it plays "when_deck_emptied", "when_draw_finds_deck_empty", "at_throw_after_deck_emptied")',
  });
  const unknown = yaniv((r) => { r.call.limit_after_turns = 3; });
  assert.deepEqual(t.send({ cmd: 'start', profile: unknown, options: {}, seats: 2 }).error, {
    code: 'unsupported_profile', message: 'rules.call.limit_after_turns: this engine does not implement this rule parameter' });
});

test('throws.run.order ascending: a run is placed lowest first, a joker where it stands', () => {
  const rules = {
    runMin: 3, runMax: null, runMinNaturals: 1, runWrap: false, runAce: 'low', jokersWild: 'runs',
    setMin: 2, setMax: 4, setJokersAlone: true, packSteps: [], single: 'any', runOrder: 'ascending',
  };
  assert.equal(outOfOrder(['5h', '6h', '7h'], rules), false);
  assert.equal(outOfOrder(['7h', '6h', '5h'], rules), true);
  assert.equal(outOfOrder(['5h', 'X', '7h'], rules), false);
  assert.equal(outOfOrder(['X', '5h', '6h', '7h'], rules), true); // X stands for the 8h
  assert.equal(outOfOrder(['9d', '9c'], rules), false); // a set: any order
  assert.equal(outOfOrder(['7h', '6h', '5h'], { ...rules, runOrder: 'any' }), false);
  assert.deepEqual(legalThrowsOf(['5h', '7h', 'X'], rules).at(-1), ['5h', 'X', '7h']);
  assert.deepEqual(ascendingRun(['X', '5h', '6h'], rules), ['5h', '6h', 'X']);
});

test('throws.laid runs_by_rank: a run lies by rank, a set or single as placed', () => {
  const rules = {
    runMin: 3, runMax: null, runMinNaturals: 1, runWrap: false, runAce: 'low', jokersWild: 'runs',
    setMin: 2, setMax: 4, setJokersAlone: false, packSteps: [], laid: 'runs_by_rank',
  };
  assert.deepEqual(laidCards(['6h', 'X', '4h'], 'run', rules), ['4h', 'X', '6h']);
  assert.deepEqual(laidCards(['9s', '9c', '9d'], 'set', rules), ['9s', '9c', '9d']);
  assert.deepEqual(laidCards(['9s', '9c', '9d'], 'set', { ...rules, laid: 'by_rank' }), ['9c', '9d', '9s']);
});

test('throws.single_joker false: a joker alone is refused while the hand allows another throw', () => {
  const rules = {
    runMin: 3, runMax: null, runMinNaturals: 1, runWrap: false, runAce: 'low', jokersWild: 'runs',
    setMin: 2, setMax: 4, setJokersAlone: false, packSteps: [], single: 'any', singleJoker: false,
  };
  assert.equal(jokerAloneRefused(['X'], ['X', '5h', 'Kc'], rules), true);
  assert.equal(jokerAloneRefused(['X'], ['X', 'X'], rules), false); // jokers only: no other throw
  assert.deepEqual(legalThrowsOf(['X', '5h', '6h'], rules), [['5h'], ['6h'], ['5h', '6h', 'X']]);
  assert.equal(jokerAloneRefused(['X'], ['X', '5h', 'Kc'], { ...rules, singleJoker: true }), false);
});

test('throws.run.jokers_extend: a spare joker stands above the run (up_first) or below it (down_first)', () => {
  const rules = {
    runMin: 3, runMax: null, runMinNaturals: 1, runWrap: false, runAce: 'low', jokersWild: 'runs',
    setMin: 2, setMax: 4, setJokersAlone: true, packSteps: [], runJokersExtend: 'down_first',
  };
  assert.deepEqual(runPositions(['5h', '6h', '7h', 'X'], rules), [['X', 4], ['5h', 5], ['6h', 6], ['7h', 7]]);
  assert.deepEqual(runPositions(['Ah', '2h', '3h', 'X'], rules), [['Ah', 1], ['2h', 2], ['3h', 3], ['X', 4]]);
  assert.deepEqual(runPositions(['5h', '6h', '7h', 'X'], { ...rules, runJokersExtend: 'up_first' }),
    [['5h', 5], ['6h', 6], ['7h', 7], ['X', 8]]);
  assert.deepEqual(runPositions(['Ah', '2h', '3h', 'X'], { ...rules, runWrap: true }), [['X', 13], ['Ah', 1], ['2h', 2], ['3h', 3]]);
});

test('throws.single highest_when_no_combination: without a set or run, only the highest single', () => {
  const rules = {
    runMin: 3, runMax: null, runMinNaturals: 1, runWrap: false, runAce: 'low', jokersWild: 'none',
    setMin: 2, setMax: 4, setJokersAlone: true, packSteps: [], single: 'highest_when_no_combination',
    cardValues: { A: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7, 8: 8, 9: 9, T: 10, J: 11, Q: 12, K: 13 },
  };
  assert.equal(singleRefused(['2c'], ['Kc', '9d', '5h', '3s', '2c'], rules), true);
  assert.equal(singleRefused(['Kc'], ['Kc', '9d', '5h', '3s', '2c'], rules), false);
  assert.equal(singleRefused(['3d'], ['Qd', '8h', '8s', '4c', '3d'], rules), false); // a set in hand
  assert.deepEqual(legalThrowsOf(['Kc', '9d', '2c'], rules), [['Kc']]);
});

test('card_values.only_jokers: a hand of jokers only is worth the value for each joker, a joker beside other cards card_values.X', () => {
  const rules = readRules(yaniv((r) => { r.card_values.only_jokers = -5; }).rules);
  assert.equal(profileHandValue(rules, ['X', 'X']), -10);
  assert.equal(profileHandValue(rules, ['X']), -5);
  assert.equal(profileHandValue(rules, ['X', 'Ac']), 1);
  assert.equal(profileHandValue(rules, []), 0);
  const plain = readRules(yaniv(() => {}).rules);
  assert.equal(profileHandValue(plain, ['X', 'X']), 0);
  assert.throws(() => readRules(yaniv((r) => { r.card_values.only_jokers = 'low'; }).rules), /card_values\.only_jokers/);
});
