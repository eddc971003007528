// Option values and resolution, and the check of what an engine implements.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ANY, KIT_RULES, Refused, decimalText, normalizeOption, resolveProfile, unsupported,
} from '../jhyap-kit.mjs';
import { fixture } from './profile-engine.mjs';

const refusedWith = (code) => (err) => err instanceof Refused && err.code === code;
const dollars = { name: 'dollars_per_point', type: 'decimal', range: { min: '0.01', max: null, step: '0.01' } };

test('decimals: JSON strings in plain notation, reported with two decimals', () => {
  assert.equal(normalizeOption(dollars, '0.1'), '0.10');
  assert.equal(normalizeOption(dollars, '0.05'), '0.05');
  assert.equal(normalizeOption(dollars, '12'), '12.00');
  assert.equal(normalizeOption(dollars, '007.500'), '7.50');
  assert.equal(decimalText('1.005'), '1.005');
  for (const bad of [0.05, 1, '5e-2', '.5', '-1', '0.015', '0.00', '1'.repeat(16)]) {
    assert.throws(() => normalizeOption(dollars, bad), refusedWith('invalid_option_value'), String(bad));
  }
  assert.throws(() => normalizeOption(dollars, 0.05), { message: 'option dollars_per_point: 0.05 is not allowed; allowed: 0.01 or more in steps of 0.01' });
});

test('integers, booleans and choices: the JSON type, then the values or range', () => {
  const limit = { name: 'call_limit', type: 'integer', range: { min: 5, max: 10, step: 1 } };
  assert.equal(normalizeOption(limit, 10), 10);
  for (const bad of [4, 11, '8', 8.5, true]) assert.throws(() => normalizeOption(limit, bad), refusedWith('invalid_option_value'));
  const even = { name: 'e', type: 'integer', range: { min: 0, max: null, step: 2 } };
  assert.equal(normalizeOption(even, 1000000), 1000000);
  assert.throws(() => normalizeOption(even, 3), refusedWith('invalid_option_value'));
  const flag = { name: 'f', type: 'boolean', values: [false, true] };
  assert.equal(normalizeOption(flag, true), true);
  assert.throws(() => normalizeOption(flag, 'true'), refusedWith('invalid_option_value'));
  const choice = { name: 'score_cut', type: 'choice', values: ['none', 'at_100_to_50'] };
  assert.equal(normalizeOption(choice, 'none'), 'none');
  assert.throws(() => normalizeOption(choice, 'None'), { message: 'option score_cut: None is not allowed; allowed: none, at_100_to_50' });
});

test('resolution: start.options win, the others take their defaults, maps apply', () => {
  const doc = fixture('dashain');
  doc.rules.call.limit = 99; // what profile.rules says is overridden by the option values
  const { profile } = resolveProfile(doc, { call_limit: 12, first_round_jhyap: true, dollars_per_point: '0.1' });
  assert.deepEqual(profile.option_values, { dollars_per_point: '0.10', call_limit: 12, first_round_jhyap: true, turn_timer: 0 });
  assert.equal(profile.rules.call.limit, 12);
  assert.equal(profile.rules.call.first_round, 'allowed');
  assert.equal(profile.rules.money.dollars_per_point, '0.10');
  const { profile: defaults } = resolveProfile(doc, {});
  assert.equal(defaults.rules.call.limit, 10);
  assert.equal(defaults.rules.call.first_round, 'after_every_player_had_a_turn');
  assert.equal(doc.rules.call.limit, 99, 'the document is not changed');
  const { profile: bga } = resolveProfile(fixture('bga-yaniv'), { score_cut: 'none', packs: 'two' });
  assert.deepEqual(bga.rules.scoring.cuts, []);
  assert.deepEqual(bga.rules.deck.packs_by_seats, [{ from_seats: 2, packs: 2 }]);
});

test('resolution: every name is checked before any value', () => {
  assert.throws(() => resolveProfile(fixture('dashain'), { call_limit: '12', no_such_option: 1 }), refusedWith('unknown_option'));
  assert.throws(() => resolveProfile(fixture('dashain'), { call_limit: '12' }), refusedWith('invalid_option_value'));
});

test('an option may set several parameters through its map', () => {
  const doc = fixture('bga-yaniv');
  doc.options = [{ name: 'faces', type: 'boolean', values: [false, true], default: false, sets: ['card_values.J', 'card_values.Q'], map: { false: [10, 10], true: [0, 11] }, locked_when_open: true }];
  const { profile } = resolveProfile(doc, { faces: true });
  assert.deepEqual([profile.rules.card_values.J, profile.rules.card_values.Q], [0, 11]);
});

test('unsupported: an undeclared parameter or an unlisted value is named', () => {
  const rules = fixture('bga-yaniv').rules;
  assert.equal(unsupported(rules, { ...KIT_RULES }), 'rules.deck.jokers_wild: this engine does not implement this rule parameter');
  const all = Object.fromEntries(Object.keys(rules).map((k) => [k, ANY]));
  assert.equal(unsupported(rules, all), null);
  assert.equal(unsupported(rules, { ...all, 'call.limit': [7] }), 'rules.call.limit: 8 is not implemented by this engine (it plays 7)');
  assert.equal(unsupported({ ...rules, extra: { depth: 1 } }, all), 'rules.extra.depth: this engine does not implement this rule parameter');
  assert.equal(unsupported(rules, { ...all, showdown: [{ winner_among_lowest: 'first_after_caller', tie: 'beats_caller' }] }), null, 'objects compare whatever their key order');
  assert.equal(unsupported(rules, { ...all, 'call.limit': (v) => v > 9 }), 'rules.call.limit: 8 is not implemented by this engine (it plays other values)');
});

test('unsupported: a binding that declares the call leaves it plays refuses call.min_own_turns by name', () => {
  const rules = fixture('bga-yaniv').rules;
  const all = Object.fromEntries(Object.keys(rules).filter((k) => k !== 'call').map((k) => [k, ANY]));
  for (const leaf of ['limit', 'inclusive', 'timing', 'first_round']) all[`call.${leaf}`] = ANY;
  assert.equal(unsupported(rules, all), null);
  assert.equal(unsupported({ ...rules, call: { ...rules.call, min_own_turns: 2 } }, all),
    'rules.call.min_own_turns: this engine does not implement this rule parameter');
});

test('readRules: a parameter the kit reads, missing or mistyped, is invalid_profile naming it', async () => {
  const { readRules } = await import('../jhyap-kit.mjs');
  const rules = fixture('bga-yaniv').rules;
  assert.equal(readRules(rules).handSize, 5);
  const cases = [
    [(r) => { delete r.hand_size; }, 'rules.hand_size: must be an integer of at least 1, not undefined'],
    [(r) => { r.seats.min = 1; }, 'rules.seats.min: must be an integer of at least 2, not 1'],
    [(r) => { r.card_values.Q = '10'; }, 'rules.card_values.Q: must be an integer, not "10"'],
    [(r) => { r.deck.packs_by_seats = [{ from_seats: 'x', packs: 2 }]; }, 'rules.deck.packs_by_seats.0.from_seats: must be an integer of at least 2, not "x"'],
    [(r) => { r.turn_timer = { seconds: 2.5 }; }, 'rules.turn_timer.seconds: must be an integer, not 2.5'],
    [(r) => { r.pick.only_after_multi_throw = 'no'; }, 'rules.pick.only_after_multi_throw: must be true or false, not "no"'],
  ];
  for (const [spoil, message] of cases) {
    const r = structuredClone(rules);
    spoil(r);
    assert.throws(() => readRules(r), { code: 'invalid_profile', message });
  }
});
