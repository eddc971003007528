// jhyap-kit: bind a JavaScript Jhyap/Yaniv engine to the jhyap-conformance JSON-lines
// protocol (docs/protocol.md) without writing protocol code. One dependency-free ES module
// for Node >= 18; its types are in jhyap-kit.d.ts. It mirrors the Python kit (jhyap_kit).
//
// Layers: (a) the protocol core: transport, seq, the order of checks, error codes,
// hello/stop, options; (b) TrackedEngine: a base class that keeps the offer, pickable
// cards, out of play, turn counts, multi-throwers, events, phases, `state` and `legal`,
// calling a few hooks of the engine it binds.

import { AsyncLocalStorage } from 'node:async_hooks';
import { writeSync } from 'node:fs';

// The version the kit was written for: 1.1 adds the deal's layout and hello.supports.state_fields,
// 1.2 hello.supports.requests_ahead (lineServer answers each line in order, whatever follows it).
export const PROTOCOL_VERSION = '1.2';
// The kit's version: the protocol version it speaks, then its own revision (package.json's).
export const KIT_VERSION = '1.2.0';
export const MAX_LINE_BYTES = 1 << 20;
export const MAX_SEQ = Number.MAX_SAFE_INTEGER; // 2^53 - 1
export const COMMANDS = Object.freeze([
  'hello', 'start', 'deal', 'act', 'reshuffle', 'set_option', 'end_game', 'state', 'legal', 'stop',
]);

/** Every protocol error code (docs/protocol.md, "Error codes"). */
export const ErrorCode = Object.freeze({
  BAD_REQUEST: 'bad_request',
  UNKNOWN_COMMAND: 'unknown_command',
  UNSUPPORTED_PROTOCOL: 'unsupported_protocol',
  UNSUPPORTED_PROFILE: 'unsupported_profile',
  UNSUPPORTED_OPTION: 'unsupported_option',
  UNSUPPORTED_COMMAND: 'unsupported_command',
  INVALID_PROFILE: 'invalid_profile',
  INVALID_SEATS: 'invalid_seats',
  UNKNOWN_OPTION: 'unknown_option',
  INVALID_OPTION_VALUE: 'invalid_option_value',
  OPTION_LOCKED: 'option_locked',
  WRONG_PHASE: 'wrong_phase',
  NOT_YOUR_TURN: 'not_your_turn',
  INVALID_SEAT: 'invalid_seat',
  INVALID_CARD: 'invalid_card',
  INVALID_DECK: 'invalid_deck',
  INVALID_RESHUFFLE: 'invalid_reshuffle',
  CARD_NOT_IN_HAND: 'card_not_in_hand',
  ILLEGAL_THROW: 'illegal_throw',
  CALL_OVER_LIMIT: 'call_over_limit',
  CALL_TOO_EARLY: 'call_too_early',
  CARD_NOT_ON_OFFER: 'card_not_on_offer',
  PICK_NOT_ALLOWED: 'pick_not_allowed',
  SLAPDOWN_NOT_ALLOWED: 'slapdown_not_allowed',
  TIMER_OFF: 'timer_off',
  GAME_NOT_ENDABLE: 'game_not_endable',
  INTERNAL_ERROR: 'internal_error',
});
const CODES = new Set(Object.values(ErrorCode));

/** A refused request: thrown by the kit or by a hook before anything changed. */
export class Refused extends Error {
  constructor(code, message) {
    super(message);
    if (!CODES.has(code)) throw new TypeError(`not a protocol error code: ${code}`);
    this.name = 'Refused';
    this.code = code;
  }
}

const refuse = (code, message) => { throw new Refused(code, message); };

// -- cards ------------------------------------------------------------------------------

export const RANKS = 'A23456789TJQK';
export const SUITS = 'cdhs';
export const JOKER = 'X';
const SORT_KEY = new Map();
for (let r = 0; r < 13; r += 1) {
  for (let s = 0; s < 4; s += 1) SORT_KEY.set(RANKS[r] + SUITS[s], (r + 1) * 4 + s);
}
const JOKER_KEY = 14 * 4;
SORT_KEY.set(JOKER, JOKER_KEY);

/** Whether `name` is a protocol card name (`Ah`, `Td`, `X`). */
export const isCard = (name) => typeof name === 'string' && SORT_KEY.has(name);
/** A card's rank: 1 (ace) to 13 (king); 0 for a joker. */
export const rankOf = (card) => (card === JOKER ? 0 : RANKS.indexOf(card[0]) + 1);
/** A card's suit letter; `x` for a joker. */
export const suitOf = (card) => (card === JOKER ? 'x' : card[1]);
/** Cards in canonical order: by rank, ace first, then c d h s; jokers last. */
export const canonical = (cards) => [...cards].sort((a, b) => SORT_KEY.get(a) - SORT_KEY.get(b));

/** Every card of a table: `packs` packs of 52 less the ranks left out (rank letters, e.g.
 * `['K']`: all four suits), each with `jokersPerPack` jokers. */
export function fullDeck(packs = 1, jokersPerPack = 0, ranksLeftOut = []) {
  return [...tableDeck(packs, jokersPerPack, ranksLeftOut)];
}

// The decks made so far, by their makeup: every start checks each seat count's deck and
// every deal its own, and a run plays the same few tables again and again.
const DECKS = new Map();

/** fullDeck's cards, frozen and shared: for the kit's own reading, never handed out. */
function tableDeck(packs, jokersPerPack, ranksLeftOut) {
  const key = JSON.stringify([packs, jokersPerPack, ranksLeftOut]);
  let deck = DECKS.get(key);
  if (deck === undefined) {
    const pack = [...SORT_KEY.keys()].filter((c) => c !== JOKER && !ranksLeftOut.includes(c[0]));
    const one = [...pack, ...Array(jokersPerPack).fill(JOKER)];
    deck = Object.freeze(Array.from({ length: packs }, () => one).flat());
    DECKS.set(key, deck);
  }
  return deck;
}

function counts(cards) {
  const m = new Map();
  for (const c of cards) m.set(c, (m.get(c) ?? 0) + 1);
  return m;
}

/** Whether two lists hold the same cards, each as often. */
export function sameCards(a, b) {
  if (a.length !== b.length) return false;
  // Card names are counted by their sort keys (4 to 56) in an array, not a Map: every deal
  // compares the deck it is given with the table's.
  const tally = new Int32Array(JOKER_KEY + 1);
  let named = true;
  for (let i = 0; i < a.length && named; i += 1) {
    const key = SORT_KEY.get(a[i]);
    if (key === undefined) named = false;
    else tally[key] += 1;
  }
  if (named) {
    for (let i = 0; i < b.length; i += 1) {
      const key = SORT_KEY.get(b[i]);
      if (key === undefined || tally[key] === 0) return false;
      tally[key] -= 1;
    }
    return true;
  }
  const m = counts(a);
  for (const c of b) {
    const n = m.get(c);
    if (!n) return false;
    m.set(c, n - 1);
  }
  return true;
}

/** `from` less one occurrence of each card of `cards` (a new array). */
export function withoutCards(from, cards) {
  const rest = [...from];
  for (const c of cards) {
    const i = rest.indexOf(c);
    if (i >= 0) rest.splice(i, 1);
  }
  return rest;
}

function parseCards(items, what = 'cards') {
  if (!Array.isArray(items) || !items.every((i) => typeof i === 'string')) {
    refuse(ErrorCode.BAD_REQUEST, `'${what}' must be a list of card names`);
  }
  for (const item of items) parseCard(item);
  return [...items];
}

function parseCard(text) {
  if (!isCard(text)) {
    refuse(ErrorCode.INVALID_CARD, `${JSON.stringify(text)} is not a card: write rank (A 2-9 T J Q K) then suit (c d h s), e.g. Td, or X for a joker`);
  }
  return text;
}

// -- messages ---------------------------------------------------------------------------

/** `text` with every run of more than 80 word characters clipped (echoed values stay short). */
export function clipWords(text, limit = 80) {
  return String(text).replace(new RegExp(`[\\p{L}\\p{N}_]{${limit + 1},}`, 'gu'),
    (run) => `${[...run].slice(0, limit - 1).join('')}… (${[...run].length} characters)`);
}

// -- option values ----------------------------------------------------------------------

const PLAIN_DECIMAL = /^[0-9]+(\.[0-9]+)?$/;
const DECIMAL_DIGITS = 15;

/** A decimal in plain notation as a scaled BigInt: [units, scale]. */
function decimalParts(text) {
  const [whole, frac = ''] = String(text).split('.');
  return [BigInt(whole + frac), frac.length];
}

function compareDecimals(a, b) {
  const [x, sx] = decimalParts(a);
  const [y, sy] = decimalParts(b);
  const scale = Math.max(sx, sy);
  const xs = x * 10n ** BigInt(scale - sx);
  const ys = y * 10n ** BigInt(scale - sy);
  return xs < ys ? -1 : xs > ys ? 1 : 0;
}

/** `text` (plain decimal notation) with at least two decimals and no needless zeros. */
export function decimalText(text) {
  let [whole, frac = ''] = String(text).split('.');
  whole = whole.replace(/^0+(?=\d)/, '');
  frac = frac.replace(/0+$/, '');
  return `${whole}.${frac.padEnd(2, '0')}`;
}

function showValue(value) {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function allowedText(spec) {
  if (spec.values != null) return spec.values.map(showValue).join(', ');
  const r = spec.range;
  if (r.max == null) return `${r.min} or more in steps of ${r.step}`;
  return `${r.min} to ${r.max} in steps of ${r.step}`;
}

/** The canonical form of option `value` for `spec`, or Refused(invalid_option_value). */
export function normalizeOption(spec, value) {
  const bad = () => refuse(ErrorCode.INVALID_OPTION_VALUE,
    `option ${spec.name}: ${showValue(value)} is not allowed; allowed: ${allowedText(spec)}`);
  let v = value;
  if (spec.type === 'boolean') {
    if (typeof v !== 'boolean') bad();
  } else if (spec.type === 'integer') {
    if (!Number.isInteger(v)) bad();
  } else if (spec.type === 'decimal') {
    if (typeof v !== 'string' || !PLAIN_DECIMAL.test(v)) bad();
    const [whole, frac = ''] = v.split('.');
    const digits = whole.replace(/^0+/, '');
    if (digits.length > DECIMAL_DIGITS || frac.length > 2 * DECIMAL_DIGITS) bad();
    v = decimalText(v);
  } else if (typeof v !== 'string') {
    bad();
  }
  if (spec.values != null) {
    const found = spec.type === 'decimal'
      ? spec.values.some((x) => typeof x === 'string' && PLAIN_DECIMAL.test(x) && compareDecimals(x, v) === 0)
      : spec.values.some((x) => x === v);
    if (!found) bad();
    return v;
  }
  const { min, max, step } = spec.range;
  const low = String(min);
  if (compareDecimals(String(v), low) < 0 || (max != null && compareDecimals(String(v), String(max)) > 0)) bad();
  const [x, sx] = decimalParts(String(v));
  const [l, sl] = decimalParts(low);
  const [st, ss] = decimalParts(String(step));
  const scale = Math.max(sx, sl, ss);
  const up = (n, s) => n * 10n ** BigInt(scale - s);
  if ((up(x, sx) - up(l, sl)) % up(st, ss) !== 0n) bad();
  return v;
}

function optionSpecs(document) {
  const list = document.options ?? [];
  if (!Array.isArray(list)) refuse(ErrorCode.INVALID_PROFILE, 'profile options must be a list');
  const specs = new Map();
  for (const o of list) {
    if (o === null || typeof o !== 'object' || typeof o.name !== 'string'
      || !['integer', 'decimal', 'boolean', 'choice'].includes(o.type)
      || (o.values == null && (o.range == null || typeof o.range !== 'object'))
      || (o.values != null && !Array.isArray(o.values))
      || !(typeof o.sets === 'string' || Array.isArray(o.sets)) || !('default' in o)) {
      refuse(ErrorCode.INVALID_PROFILE, `profile option ${JSON.stringify(o?.name ?? o)} is malformed`);
    }
    const map = o.map ? Object.fromEntries(Object.entries(o.map).map(([k, v]) => [k.toLowerCase(), v])) : null;
    const changes = o.changes ?? (o.locked_when_open ? 'at_start_only' : 'between_hands');
    specs.set(o.name, { ...o, map, changes, targets: typeof o.sets === 'string' ? [o.sets] : o.sets });
  }
  return specs;
}

function parameterValues(spec, value) {
  const mapped = spec.map ? spec.map[String(value).toLowerCase()] : value;
  if (spec.map && mapped === undefined) {
    refuse(ErrorCode.INVALID_PROFILE, `option ${spec.name}: the map has no entry for ${showValue(value)}`);
  }
  if (typeof spec.sets === 'string') return [mapped];
  if (!Array.isArray(mapped) || mapped.length !== spec.targets.length) {
    refuse(ErrorCode.INVALID_PROFILE, `option ${spec.name}: the map entry for ${showValue(value)} must list ${spec.targets.length} values`);
  }
  return mapped;
}

// A string, a boolean, a finite number or null is its own copy (most option values are).
const copyJson = (v) => (v === undefined || v === null || typeof v === 'string' || typeof v === 'boolean' || Number.isFinite(v)
  ? v : JSON.parse(JSON.stringify(v)));

function setPath(data, path, value) {
  const keys = path.split('.');
  let node = data;
  for (const key of keys.slice(0, -1)) {
    if (node === null || typeof node !== 'object' || !(key in node)) throw new Error(path);
    node = node[key];
  }
  if (node === null || typeof node !== 'object') throw new Error(path);
  node[keys.at(-1)] = value;
}

/**
 * The resolved profile: `document` with `options` applied to its rules (start.options win,
 * an option left out takes its default), and `option_values` holding every option's value.
 * `check(name)` is called for each option name after it is found, before any value. The
 * rules and the options are copies; every other value is the document's own (its clauses
 * are most of a profile, and nothing that plays a table edits them), as in the Python kit.
 */
export function resolveProfile(document, options = {}, check = () => {}) {
  const specs = optionSpecs(document);
  for (const name of Object.keys(options)) {
    if (!specs.has(name)) {
      refuse(ErrorCode.UNKNOWN_OPTION, `unknown option ${JSON.stringify(name)}; this profile's options: ${[...specs.keys()].join(', ') || 'none'}`);
    }
    check(name);
  }
  const chosen = {};
  for (const [name, value] of Object.entries(options)) chosen[name] = normalizeOption(specs.get(name), value);
  const resolved = { ...document };
  for (const key of ['rules', 'options']) if (key in resolved) resolved[key] = copyJson(resolved[key]);
  const values = {};
  for (const [name, spec] of specs) {
    const value = name in chosen ? chosen[name] : normalizeOption(spec, spec.default);
    values[name] = value;
    const params = parameterValues(spec, value);
    spec.targets.forEach((path, i) => {
      try {
        setPath(resolved.rules, path, copyJson(params[i]));
      } catch {
        refuse(ErrorCode.INVALID_PROFILE, `option ${name} sets unknown rule parameter ${path}`);
      }
    });
  }
  resolved.option_values = values;
  return { profile: resolved, specs };
}

// -- what an engine implements ----------------------------------------------------------

/** pick.multi_throw_scope, as a refused pick from the offer words it. */
const MULTI_THROW_WHEN = Object.freeze({ turn: 'this turn', hand: 'this round', game: 'in this game' });

/** Every value of a parameter, in a support declaration. */
export const ANY = Object.freeze({ toString: () => 'ANY' });

/** The rule parameters the kit itself plays for a TrackedEngine; spread into a binding's. */
export const KIT_RULES = Object.freeze({
  seats: ANY,
  'deck.cards': ANY,
  'deck.ranks_left_out': ANY,
  'deck.jokers': ANY,
  'deck.packs_by_seats': ANY,
  hand_size: ANY,
  direction: ANY,
  'deal.dealer': ['none', 'seat_before_starter'],
  'deal.first_starter': ANY,
  'deal.order': ['one_at_a_time_from_starter'],
  'deal.first_offer': ['turned_up_card', 'none'],
  next_starter: ['next_seat', 'round_winner', 'seat_after_round_winner', 'caller', 'first_starter'],
  'pick.from_offer': ['any', 'last_placed', 'first_or_last_placed', 'run_ends'],
  'pick.only_after_multi_throw': ANY,
  'pick.multi_throw_scope': ['turn', 'hand', 'game'],
  'reshuffle.moment': ['when_deck_emptied', 'when_draw_finds_deck_empty', 'at_throw_after_deck_emptied'],
  'reshuffle.new_deck': ['out_of_play'],
  'reshuffle.kept_aside': ['current_offer', 'offer_and_throw', 'pickable_and_throw', 'offer_and_card_under'],
  deck_runs_out: ['reshuffle', 'round_ends_no_score', 'round_ends_hands_score', 'offer_under_deck'],
  deck_runs_out_when: ['last_card_taken', 'draw_finds_deck_empty'],
  'throws.laid': ['as_placed', 'by_rank', 'runs_by_rank'],
  'call.timing': ['start_of_turn'],
  'game_end.kind': ['host_ends', 'fixed_rounds', 'elimination', 'first_past_target', 'one_hand'],
  'game_end.rounds': ANY,
  turn_timer: ANY,
});

/**
 * Every value the kit's own procedure plays, for each parameter it reads (the deal, turns,
 * the offer, reshuffles, the starter, game end, results, the timer). A profile holding
 * another value is refused `unsupported_profile` naming it, whatever a binding's RULES say:
 * a binding narrows what it plays, it cannot widen the kit into misplay. A parameter the
 * kit reads only for a value listed here (game_end.out_above and reaching_is_out for
 * first_past_target) is the binding's to declare.
 */
export const KIT_PLAYS = Object.freeze({
  'deck.jokers_wild': ['none', 'runs', 'sets', 'sets_and_runs'],
  'deal.dealer': ['none', 'seat_before_starter'],
  'deal.order': ['one_at_a_time_from_starter'],
  'deal.first_offer': ['turned_up_card', 'none'],
  next_starter: ['next_seat', 'round_winner', 'seat_after_round_winner', 'caller', 'first_starter'],
  'throws.run.ace': ['low', 'high', 'low_or_high'],
  'throws.run.order': ['any', 'ascending'],
  'throws.run.jokers_extend': ['up_first', 'down_first'],
  'throws.laid': ['as_placed', 'by_rank', 'runs_by_rank'],
  'throws.single': ['any', 'when_no_combination', 'highest_when_no_combination'],
  'throws.slapdown': ['none'], // the slapdown action is not in the kit's procedure
  'pick.from_offer': ['any', 'last_placed', 'first_or_last_placed', 'run_ends'],
  'pick.multi_throw_scope': ['turn', 'hand', 'game'],
  'reshuffle.moment': ['when_deck_emptied', 'when_draw_finds_deck_empty', 'at_throw_after_deck_emptied'],
  'reshuffle.new_deck': ['out_of_play'],
  'reshuffle.kept_aside': ['current_offer', 'offer_and_throw', 'pickable_and_throw', 'offer_and_card_under'],
  deck_runs_out: ['reshuffle', 'round_ends_no_score', 'round_ends_hands_score', 'offer_under_deck'],
  deck_runs_out_when: ['last_card_taken', 'draw_finds_deck_empty'],
  'call.timing': ['start_of_turn'],
  'scoring.kind': ['transfer', 'penalty', 'none'],
  'game_end.kind': ['host_ends', 'fixed_rounds', 'elimination', 'first_past_target', 'one_hand'],
  'money.settlement': ['largest_debtor_pays_largest_creditor', 'debtors_pay_creditors_in_seat_order'],
  'turn_timer.on_expiry': ['throw_highest_single_then_draw', 'throw_highest_single_then_take_lowest'],
});

/** The message naming the first parameter of `rules` whose value the kit does not play, or null. */
export function kitUnplayed(rules, skip = []) {
  for (const [path, values] of Object.entries(KIT_PLAYS)) {
    if (skip.some((s) => path === s || path.startsWith(`${s}.`) || s.startsWith(`${path}.`))) continue;
    const held = at(rules, path);
    if (held === undefined || values.includes(held)) continue;
    return `rules.${path}: ${JSON.stringify(held)} is not played by jhyap-kit (it plays ${values.map((v) => JSON.stringify(v)).join(', ')})`;
  }
  return null;
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Every [dotted path, value] of `rules`, descending into non-empty objects only. */
export function* leaves(rules, prefix = '') {
  for (const [key, value] of Object.entries(rules)) {
    const path = prefix + key;
    if (isObject(value) && Object.keys(value).length) yield* leaves(value, `${path}.`);
    else yield [path, value];
  }
}

// Each dotted path's keys, split once: readRules reads some fifty a start.
const PATH_KEYS = new Map();
const PATH_KEYS_KEPT = 1024;

function at(rules, path) {
  let keys = PATH_KEYS.get(path);
  if (keys === undefined) {
    keys = path.split('.');
    if (PATH_KEYS.size < PATH_KEYS_KEPT) PATH_KEYS.set(path, keys);
  }
  let node = rules;
  for (let i = 0; i < keys.length; i += 1) node = node?.[keys[i]];
  return node;
}

function sortedJson(value) {
  if (Array.isArray(value)) return value.map(sortedJson);
  if (isObject(value)) return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortedJson(value[k])]));
  return value;
}
/** Whether two JSON values are equal, whatever the order of their objects' keys. */
export const sameJson = (a, b) => JSON.stringify(sortedJson(a)) === JSON.stringify(sortedJson(b));

/** Every rule parameter of the profile format (schema/profile.schema.json), by dotted path:
 * a parameter outside it is refused even where a binding declares its section ANY. */
export const RULE_PARAMETERS = Object.freeze(new Set([
  'seats.min', 'seats.max',
  'deck.cards', 'deck.ranks_left_out', 'deck.jokers', 'deck.jokers_wild', 'deck.packs_by_seats',
  'hand_size', ...[...RANKS, 'X', 'cards', 'only_jokers'].map((k) => `card_values.${k}`), 'direction',
  'deal.dealer', 'deal.first_starter', 'deal.order', 'deal.first_offer', 'next_starter', 'deck_runs_out',
  'deck_runs_out_when',
  'throws.set.min', 'throws.set.max', 'throws.set.jokers_alone',
  'throws.run.min', 'throws.run.max', 'throws.run.min_naturals', 'throws.run.wrap', 'throws.run.ace',
  'throws.run.order', 'throws.run.jokers_extend', 'throws.order_matters', 'throws.single', 'throws.single_joker',
  'throws.laid', 'throws.slapdown',
  'pick.from_offer', 'pick.only_after_multi_throw', 'pick.multi_throw_scope',
  'reshuffle.moment', 'reshuffle.new_deck', 'reshuffle.kept_aside',
  'call.limit', 'call.limit_by_seats', 'call.inclusive', 'call.timing', 'call.first_round', 'call.min_own_turns',
  'showdown.tie', 'showdown.winner_among_lowest',
  'scoring.kind', 'scoring.won_call', 'scoring.beaten_call', 'scoring.beaten_penalty', 'scoring.beaten_factor', 'scoring.beaten_others',
  'scoring.cuts', 'scoring.halve_at_multiples_of', 'scoring.drop_at_multiples_of', 'scoring.points_multiplier', 'scoring.multiples_for',
  'game_end.kind', 'game_end.rounds', 'game_end.out_above', 'game_end.reaching_is_out',
  'money.dollars_per_point', 'money.settlement', 'turn_timer.seconds', 'turn_timer.on_expiry',
]));
const isKnownParameter = (path) => RULE_PARAMETERS.has(path)
  || [...RULE_PARAMETERS].some((known) => known.startsWith(`${path}.`)); // an empty or null section

/** The sections above a dotted path, outermost first (`a`, `a.b` for `a.b.c`). */
function sectionsAbove(path) {
  const found = [];
  for (let i = path.indexOf('.'); i >= 0; i = path.indexOf('.', i + 1)) found.push(path.slice(0, i));
  return found;
}

/** The paths of `leaves(rules)`, in its order. */
function leafPaths(rules, prefix = '', found = []) {
  for (const key of Object.keys(rules)) {
    const value = rules[key];
    if (isObject(value) && Object.keys(value).length) leafPaths(value, `${prefix}${key}.`, found);
    else found.push(prefix + key);
  }
  return found;
}

/** sameJson, at once where both are strings, booleans or finite numbers (most values). */
function sameValue(a, b) {
  const plain = (v) => typeof v === 'string' || typeof v === 'boolean' || Number.isFinite(v);
  return plain(a) && plain(b) ? a === b : sameJson(a, b);
}

/** The message naming the first parameter of `rules` that `support` does not cover (or
 * that the profile format does not know), or null; parameters under a path of `skip` are
 * left out. */
export function unsupported(rules, support, skip = []) {
  // A path is skipped where one of `skip` holds it or lies under it: the paths of `skip`
  // and every section above them, looked up by each dotted part of the path.
  const skips = new Set(skip);
  const above = new Set(skip.flatMap(sectionsAbove));
  const skipped = (path) => above.has(path) || [path, ...sectionsAbove(path)].some((p) => skips.has(p));
  const declared = new Set(Object.keys(support));
  for (const path of leafPaths(rules)) {
    if (skipped(path)) continue;
    if (!isKnownParameter(path)) return `rules.${path}: this engine does not implement this rule parameter`;
    // The longest declared path that is the path or a section above it.
    const owner = [path, ...sectionsAbove(path).reverse()].find((p) => declared.has(p));
    if (owner === undefined) return `rules.${path}: this engine does not implement this rule parameter`;
    const allowed = support[owner];
    if (allowed === ANY) continue;
    const held = at(rules, owner);
    const ok = typeof allowed === 'function' ? allowed(held) : allowed.some((v) => sameValue(v, held));
    if (!ok) {
      const shown = typeof allowed === 'function' ? 'other values' : allowed.map((v) => JSON.stringify(v)).join(', ');
      return `rules.${owner}: ${JSON.stringify(held)} is not implemented by this engine (it plays ${shown})`;
    }
  }
  return null;
}

/**
 * For resolved rules: unsupported_option naming the option whose value set a parameter the
 * engine does not play (an engine may offer fewer values), else unsupported_profile.
 */
export function refuseUnsupported(rules, specs, support, changing = null) {
  const message = unsupported(rules, support) ?? kitUnplayed(rules);
  if (message === null) return;
  const path = message.split(':', 1)[0].slice('rules.'.length);
  const parents = (t) => t.split('.').map((_, i, keys) => keys.slice(0, i + 1).join('.'));
  // Where two options set the parameter, the one being changed is named.
  const setters = [...specs.values()].filter((spec) => spec.targets.some((t) => parents(t).includes(path)));
  const owner = setters.find((spec) => spec.name === changing) ?? setters[0];
  if (owner === undefined) refuse(ErrorCode.UNSUPPORTED_PROFILE, message);
  refuse(ErrorCode.UNSUPPORTED_OPTION, `option ${owner.name}: ${message}`);
}

/** Throw Refused(`code`) naming the first parameter `support` does not cover. */
export function checkSupport(rules, support, code) {
  const message = unsupported(rules, support);
  if (message !== null) refuse(code, message);
}

// -- the rules the kit reads ------------------------------------------------------------

function need(rules, path, test, what) {
  const value = at(rules, path);
  if (!test(value)) refuse(ErrorCode.INVALID_PROFILE, `rules.${path}: must be ${what}, not ${JSON.stringify(value)}`);
  return value;
}
const int = (least) => (v) => Number.isInteger(v) && v >= least;
const str = (v) => typeof v === 'string';
const bool = (v) => typeof v === 'boolean';

/** The rule parameters the kit plays with, read from a resolved profile's rules. */
export function readRules(r) {
  if (!isObject(r)) refuse(ErrorCode.INVALID_PROFILE, 'the profile has no rules');
  const rules = {
    seatsMin: need(r, 'seats.min', int(2), 'an integer of at least 2'),
    seatsMax: need(r, 'seats.max', int(2), 'an integer of at least 2'),
    handSize: need(r, 'hand_size', int(1), 'an integer of at least 1'),
    jokersPerPack: need(r, 'deck.jokers', int(0), 'an integer'),
    jokersWild: at(r, 'deck.jokers_wild') ?? 'none',
    packSteps: need(r, 'deck.packs_by_seats', (v) => v == null || Array.isArray(v), 'a list') ?? [],
    cardValues: need(r, 'card_values', isObject, 'an object'),
    dealer: need(r, 'deal.dealer', str, 'a string'),
    firstStarter: need(r, 'deal.first_starter', int(0), 'an integer'),
    // deal.first_offer none: no card is turned up; the hand's first pick is from the deck.
    turnsUpFirstOffer: at(r, 'deal.first_offer') !== 'none',
    nextStarter: need(r, 'next_starter', str, 'a string'),
    ranksLeftOut: need(r, 'deck.ranks_left_out', (v) => v == null || (Array.isArray(v) && v.every((k) => typeof k === 'string' && k.length === 1 && RANKS.includes(k))), 'a list of ranks (A 2-9 T J Q K)') ?? [],
    setMin: need(r, 'throws.set.min', int(1), 'an integer'),
    setMax: need(r, 'throws.set.max', int(1), 'an integer'),
    setJokersAlone: at(r, 'throws.set.jokers_alone') !== false, // true unless the profile says false
    runMin: need(r, 'throws.run.min', int(2), 'an integer'),
    runMax: need(r, 'throws.run.max', (v) => v == null || int(2)(v), 'an integer of at least 2 or null') ?? null,
    runMinNaturals: need(r, 'throws.run.min_naturals', (v) => v == null || int(1)(v), 'an integer of at least 1') ?? 1,
    runWrap: at(r, 'throws.run.wrap') ?? false,
    runAce: need(r, 'throws.run.ace', str, 'a string'),
    runOrder: at(r, 'throws.run.order') ?? 'any',
    runJokersExtend: at(r, 'throws.run.jokers_extend') ?? 'up_first',
    single: at(r, 'throws.single') ?? 'any',
    singleJoker: at(r, 'throws.single_joker') !== false, // true unless the profile says false
    laid: at(r, 'throws.laid') ?? 'as_placed',
    pickFromOffer: need(r, 'pick.from_offer', str, 'a string'),
    onlyAfterMultiThrow: need(r, 'pick.only_after_multi_throw', bool, 'true or false'),
    multiThrowScope: at(r, 'pick.multi_throw_scope') ?? 'hand',
    reshuffleMoment: need(r, 'reshuffle.moment', str, 'a string'),
    keptAside: need(r, 'reshuffle.kept_aside', str, 'a string'),
    deckRunsOut: at(r, 'deck_runs_out') ?? 'reshuffle',
    deckRunsOutWhen: at(r, 'deck_runs_out_when') ?? 'last_card_taken',
    scoring: need(r, 'scoring.kind', str, 'a string'),
    gameEnd: need(r, 'game_end.kind', str, 'a string'),
    rounds: at(r, 'game_end.rounds') ?? null,
    outAbove: at(r, 'game_end.out_above') ?? null,
    reachingIsOut: at(r, 'game_end.reaching_is_out') ?? false,
    money: at(r, 'money') ?? null,
    timerSeconds: at(r, 'turn_timer.seconds') ?? 0,
    timerExpiry: at(r, 'turn_timer.on_expiry') ?? 'throw_highest_single_then_draw',
    raw: r,
  };
  for (const key of RANKS) need(r, `card_values.${key}`, int(0), 'an integer');
  need(r, 'card_values.cards', (v) => v == null || (Array.isArray(v) && v.every((e) => isObject(e) && typeof e.card === 'string' && int(0)(e.value))), 'a list of {card, value}');
  need(r, 'card_values.only_jokers', (v) => v == null || Number.isInteger(v), 'an integer (below 0 allowed) or null');
  rules.packSteps.forEach((_, i) => {
    need(r, `deck.packs_by_seats.${i}.from_seats`, int(2), 'an integer of at least 2');
    need(r, `deck.packs_by_seats.${i}.packs`, int(1), 'an integer of at least 1');
  });
  if (at(r, 'turn_timer') != null) need(r, 'turn_timer.seconds', int(0), 'an integer');
  if (rules.rounds !== null) need(r, 'game_end.rounds', int(1), 'an integer of at least 1');
  if (new Set(rules.ranksLeftOut).size !== rules.ranksLeftOut.length || rules.ranksLeftOut.length > 12) {
    refuse(ErrorCode.INVALID_PROFILE, 'rules.deck.ranks_left_out: each rank once, and one rank at least kept');
  }
  const packCards = 52 - 4 * rules.ranksLeftOut.length;
  if (at(r, 'deck.cards') !== undefined && at(r, 'deck.cards') !== packCards) {
    refuse(ErrorCode.INVALID_PROFILE, `rules.deck.cards: ${JSON.stringify(at(r, 'deck.cards'))}, but a pack without ${rules.ranksLeftOut.join(' ') || 'any rank left out'} holds ${packCards} cards`);
  }
  if (rules.gameEnd === 'first_past_target') need(r, 'game_end.out_above', int(0), 'an integer (first_past_target needs a target)');
  if (rules.seatsMin > rules.seatsMax) refuse(ErrorCode.INVALID_PROFILE, 'rules.seats: the seat range is empty');
  if (rules.money !== null) need(r, 'money.dollars_per_point', (v) => typeof v === 'string' && /^[0-9]{1,12}(\.[0-9]{1,2})?$/.test(v), 'an amount such as "0.05"');
  return Object.freeze(rules);
}

/** How many packs a table of `seats` plays with. */
export function packsFor(rules, seats) {
  let packs = 1;
  for (const step of rules.packSteps) if (seats >= step.from_seats) packs = step.packs;
  return packs;
}

/** A card's value under the profile's card_values: its own value where `cards` names it (the
 * king of hearts 0), else its rank's (a joker's `X`, 0 when absent). */
export const profileCardValue = (rules, card) => {
  const own = (rules.cardValues.cards ?? []).find((entry) => entry.card === card);
  if (own !== undefined) return own.value;
  return card === JOKER ? rules.cardValues.X ?? 0 : rules.cardValues[card[0]];
};

/** The value of `cards` under the profile's card_values: a hand of jokers only is worth
 * `only_jokers` for each joker where the profile gives it (-5 at some tables), else each
 * card's profileCardValue. */
export const profileHandValue = (rules, cards) => {
  const onlyJokers = rules.cardValues.only_jokers ?? null;
  if (onlyJokers !== null && cards.length > 0 && cards.every((c) => c === JOKER)) return onlyJokers * cards.length;
  return cards.reduce((sum, c) => sum + profileCardValue(rules, c), 0);
};

// -- throws and the pick rule (for `kind` and `pickable`) -------------------------------

const wildIn = (rules, kind) => (kind === 'set'
  ? ['sets', 'sets_and_runs'].includes(rules.jokersWild)
  : ['runs', 'sets_and_runs'].includes(rules.jokersWild));

const RUN_BOUNDS = { low: [1, 13], high: [2, 14], low_or_high: [1, 14] };

/** Each card of a run with the rank it stands at, lowest first; null if no run. Natural
 * cards keep their rank (an ace 1 or 14 as the profile allows); jokers, where wild in runs,
 * fill the gaps first, then extend the run upwards, then downwards (throws.run.jokers_extend
 * up_first; down_first the other way round). */
export function runPositions(cards, rules) {
  if (cards.length < rules.runMin || (rules.runMax != null && cards.length > rules.runMax)) return null;
  const naturals = cards.filter((c) => c !== JOKER);
  const jokers = cards.filter((c) => c === JOKER);
  if (jokers.length && !wildIn(rules, 'run')) return null;
  if (naturals.length < (rules.runMinNaturals ?? 1)) return null;
  if (!naturals.length || naturals.some((c) => suitOf(c) !== suitOf(naturals[0]))) return null;
  const downFirst = rules.runJokersExtend === 'down_first';
  if (rules.runWrap) return wrappedPositions(naturals, jokers, downFirst);
  const aces = rules.runAce === 'high' ? [14] : rules.runAce === 'low_or_high' ? [1, 14] : [1];
  for (const ace of aces) {
    const ranked = naturals.map((c) => [rankOf(c) === 1 ? ace : rankOf(c), c]).sort((a, b) => a[0] - b[0]);
    const ranks = ranked.map(([r]) => r);
    if (ranks.some((r, i) => i && r === ranks[i - 1])) return null;
    const low = ranks[0];
    const high = ranks.at(-1);
    const spare = jokers.length - (high - low + 1 - ranks.length);
    if (spare < 0) continue;
    const [bottom, top] = RUN_BOUNDS[rules.runAce] ?? RUN_BOUNDS.low;
    const down = downFirst ? Math.min(spare, low - bottom) : spare - Math.min(spare, top - high);
    const up = spare - down;
    if (low - down < bottom || high + up > top) continue;
    const byRank = new Map(ranked);
    const placed = [];
    for (let rank = low - down; rank <= high + up; rank += 1) placed.push([byRank.get(rank) ?? JOKER, rank]);
    return placed;
  }
  return null;
}

/** A run going round the corner (Q K A 2): it starts after the widest gap between its
 * naturals' ranks (the lowest starting rank among equal gaps); jokers fill the gaps, then
 * extend it upwards (downwards when `downFirst`); ranks are 1 to 13 going round, thirteen
 * cards at most. */
function wrappedPositions(naturals, jokers, downFirst) {
  const size = naturals.length + jokers.length;
  if (size > 13) return null;
  const ranks = naturals.map(rankOf).sort((a, b) => a - b);
  if (ranks.some((r, i) => i && r === ranks[i - 1])) return null;
  let gaps = ranks.map((r, i) => (((r - ranks.at(i - 1) - 1) % 13) + 13) % 13);
  if (ranks.length === 1) gaps = [12];
  const widest = Math.max(...gaps);
  let start = ranks[gaps.indexOf(widest)];
  if (13 - widest > size) return null;
  // down_first: the spare jokers stand below the first natural, going round.
  if (downFirst) start = ((((start - 1 - (size - (13 - widest))) % 13) + 13) % 13) + 1;
  const byRank = new Map(naturals.map((c) => [rankOf(c), c]));
  const placed = [];
  for (let step = 0; step < size; step += 1) {
    const rank = ((start - 1 + step) % 13) + 1;
    placed.push([byRank.get(rank) ?? JOKER, rank]);
  }
  return placed;
}

/** The kind of throw `cards` make under the profile ('single', 'set', 'run'), or null. */
export function classifyThrow(cards, rules) {
  if (!cards.length) return null;
  if (cards.length === 1) return 'single';
  const naturals = cards.filter((c) => c !== JOKER);
  const maxPacks = Math.max(1, ...rules.packSteps.map((s) => s.packs));
  if (maxPacks === 1 && new Set(naturals).size !== naturals.length) return null;
  const ranks = new Set(naturals.map(rankOf));
  // Jokers alone are a set of their own rank where the profile allows it; among naturals
  // they stand in only when wild.
  const oneRank = (!naturals.length && rules.setJokersAlone)
    || (ranks.size === 1 && (naturals.length === cards.length || wildIn(rules, 'set')));
  if (oneRank && cards.length >= rules.setMin && cards.length <= rules.setMax) return 'set';
  return runPositions(cards, rules) ? 'run' : null;
}

/** Whether a draw that finds the deck empty ends the hand (the round_ends_* values;
 * otherwise it waits for a new deck): jhyap_core's TableRules.ends_hand_at_empty_draw. */
const endsHandAtEmptyDraw = (kit) => kit.deckRunsOut === 'round_ends_no_score'
  || kit.deckRunsOut === 'round_ends_hands_score';

/** Whether the pick taking the deck's last card ends the hand: no new deck is made, and
 * deck_runs_out_when is last_card_taken, or offer_under_deck, which reads none (its deck
 * empties only when dealt short): jhyap_core's TableRules.ends_hand_at_last_card. */
const endsHandAtLastCard = (kit) => kit.deckRunsOut !== 'reshuffle'
  && (kit.deckRunsOutWhen === 'last_card_taken' || kit.deckRunsOut === 'offer_under_deck');

/** Every legal throw from `hand` under the profile's throw rules (throws.single included),
 * each in canonical card order (a run, under throws.run.order ascending, in the order it
 * must be placed), shorter throws first, then by the cards' canonical order. */
export function legalThrowsOf(hand, rules) {
  const ordered = canonical(hand);
  const found = new Map();
  for (let mask = 1; mask < 1 << ordered.length; mask += 1) {
    const cards = ordered.filter((_, i) => mask & (1 << i));
    const key = cards.join(' ');
    if (!found.has(key) && classifyThrow(cards, rules) !== null) found.set(key, cards);
  }
  const all = [...found.values()].sort((a, b) => a.length - b.length || compareCards(a, b));
  let allowed = rules.single === 'when_no_combination' && all.some((t) => t.length > 1)
    ? all.filter((t) => t.length > 1) : all;
  if (rules.single === 'highest_when_no_combination' && allowed.length && allowed.every((t) => t.length === 1)) {
    const top = Math.max(...allowed.map(([c]) => profileCardValue(rules, c)));
    allowed = allowed.filter(([c]) => profileCardValue(rules, c) === top);
  }
  // throws.single_joker false: a joker alone only from a hand that allows nothing else.
  if (rules.singleJoker === false && allowed.some((t) => !loneJoker(t))) allowed = allowed.filter((t) => !loneJoker(t));
  return rules.runOrder === 'ascending' ? allowed.map((t) => ascendingRun(t, rules)) : allowed;
}

const loneJoker = (cards) => cards.length === 1 && cards[0] === JOKER;

/** Whether a joker thrown alone is refused under throws.single_joker false: the hand allows
 * another throw (a hand of jokers only that make no set may throw one). */
export function jokerAloneRefused(cards, hand, rules) {
  if (rules.singleJoker !== false || !loneJoker(cards)) return false;
  return legalThrowsOf(hand, rules).some((t) => !loneJoker(t));
}

/** A run's cards lowest first, each joker where it stands; any other throw as given. */
export function ascendingRun(cards, rules) {
  const placed = classifyThrow(cards, rules) === 'run' ? runPositions(cards, rules) : null;
  return placed ? placed.map(([c]) => c) : [...cards];
}

/** Whether `cards` are a run placed otherwise than lowest first under throws.run.order
 * ascending (a joker must be placed where it stands). */
export function outOfOrder(cards, rules) {
  if (rules.runOrder !== 'ascending') return false;
  return ascendingRun(cards, rules).some((c, i) => c !== cards[i]);
}

/** Whether throwing `cards` alone is refused by throws.single: when_no_combination because
 * `hand` holds a set or a run; highest_when_no_combination because it holds none and the
 * card is not of the hand's highest value. */
export function singleRefused(cards, hand, rules) {
  if (cards.length !== 1 || !['when_no_combination', 'highest_when_no_combination'].includes(rules.single)) return false;
  const combination = legalThrowsOf(hand, { ...rules, single: 'any' }).some((t) => t.length > 1);
  if (rules.single === 'when_no_combination') return combination;
  const value = (c) => profileCardValue(rules, c);
  return !combination && value(cards[0]) < Math.max(...hand.map(value));
}

/** A throw's cards as they lie on the offer, the last on top (throws.laid): as placed, or
 * by rank: a run by the ranks its cards stand at, lowest first; a set or single in
 * canonical order (as placed under runs_by_rank). */
export function laidCards(cards, kind, rules) {
  if (rules.laid === 'as_placed' || rules.laid == null) return [...cards];
  if (kind === 'run') {
    const placed = runPositions(cards, rules);
    if (placed) return placed.map(([c]) => c);
  }
  return rules.laid === 'runs_by_rank' ? [...cards] : canonical(cards);
}

/** The positions in `offer.cards` (as placed) that the profile's pick rule lets be taken. */
export function pickablePositions(offer, rules) {
  const n = offer.cards.length;
  if (!n) return [];
  if (rules.pickFromOffer === 'last_placed') return [n - 1];
  if (rules.pickFromOffer === 'first_or_last_placed') return n > 1 ? [0, n - 1] : [0];
  if (rules.pickFromOffer === 'run_ends' && offer.kind === 'run') {
    const placed = runPositions(offer.cards, rules);
    if (!placed) return offer.cards.map((_, i) => i);
    const wanted = counts(placed.length > 1 ? [placed[0][0], placed.at(-1)[0]] : [placed[0][0]]);
    const out = [];
    offer.cards.forEach((c, i) => {
      if (wanted.get(c) > 0) { wanted.set(c, wanted.get(c) - 1); out.push(i); }
    });
    return out;
  }
  return offer.cards.map((_, i) => i);
}

// -- game results (the protocol's formats) ----------------------------------------------

/** Seats best first (docs/protocol.md, "Game result"). */
export function standings(scores, outInRound, rules) {
  const sign = rules.scoring === 'transfer' ? -1 : 1;
  const key = (s) => [-(outInRound.get(s) ?? 2 ** 30), sign * scores[s], s];
  return scores.map((_, s) => s).sort((a, b) => {
    const x = key(a);
    const y = key(b);
    for (let i = 0; i < 3; i += 1) if (x[i] !== y[i]) return x[i] - y[i];
    return 0;
  });
}

/** The winners: the last seat in, the best total after fixed rounds or once a total passed
 * its target, none at a host-ended table (one_hand: see handWinners). */
export function winners(scores, active, rules) {
  if (rules.gameEnd === 'elimination') return [...active].sort((a, b) => a - b);
  if (rules.gameEnd === 'fixed_rounds' || rules.gameEnd === 'first_past_target') {
    const pick = rules.scoring === 'transfer' ? Math.max : Math.min;
    const best = pick(...active.map((s) => scores[s]));
    return active.filter((s) => scores[s] === best).sort((a, b) => a - b);
  }
  return [];
}

/** A one-hand game's winners: the hand's winner, or, when the deck ran out uncalled, every
 * seat with the lowest hand value. */
export function handWinners(lastRound) {
  if (lastRound.winner !== null && lastRound.winner !== undefined) return [lastRound.winner];
  const values = lastRound.hand_values;
  const lowest = Math.min(...values.filter((v) => v !== null));
  return values.map((v, s) => [v, s]).filter(([v]) => v === lowest).map(([, s]) => s);
}

/** A one-hand game's standings: its winners, then by hand value, the lower seat first. */
export function handStandings(lastRound) {
  const first = handWinners(lastRound);
  const values = lastRound.hand_values;
  const key = (s) => [values[s] === null ? 1 : 0, values[s] ?? 0, s];
  const rest = values.map((_, s) => s).filter((s) => !first.includes(s)).sort((a, b) => compareKeys(key(a), key(b)));
  return [...first, ...rest];
}

/** Whether a seat in play has passed the target game_end.out_above (or reached it, where
 * game_end.reaching_is_out). */
export function pastTarget(scores, active, rules) {
  return active.some((s) => (rules.reachingIsOut ? scores[s] >= rules.outAbove : scores[s] > rules.outAbove));
}

/** Whether the game is over after a round (game_end.kind). */
export function gameOverAfterRound(round, scores, active, rules) {
  if (rules.gameEnd === 'one_hand') return true;
  if (rules.gameEnd === 'first_past_target') return pastTarget(scores, active, rules);
  if (rules.gameEnd === 'elimination') return active.length <= 1;
  if (rules.gameEnd === 'fixed_rounds') return rules.rounds !== null && round >= rules.rounds;
  return false;
}

function dollars(rate, points) {
  // rate has at most two decimals (checked in readRules): cents are exact integers.
  const [units, scale] = decimalParts(rate);
  const cents = units * 10n ** BigInt(2 - scale) * BigInt(points);
  const text = cents.toString().padStart(3, '0');
  return `${text.slice(0, -2)}.${text.slice(-2)}`;
}

/** Who pays whom, until all are square (the profile's money.settlement). */
export function settlement(scores, money) {
  const rate = money.dollars_per_point;
  const balance = [...scores];
  const payments = [];
  const pay = (from, to, points) => {
    balance[from] += points;
    balance[to] -= points;
    payments.push({ from, to, points, dollars: dollars(rate, points) });
  };
  if (money.settlement === 'debtors_pay_creditors_in_seat_order') {
    for (let d = 0; d < balance.length; d += 1) {
      for (let c = 0; c < balance.length && balance[d] < 0; c += 1) {
        if (balance[c] > 0) pay(d, c, Math.min(-balance[d], balance[c]));
      }
    }
    return payments;
  }
  for (;;) {
    let debtor = 0;
    let creditor = 0;
    balance.forEach((b, s) => {
      if (b < balance[debtor]) debtor = s;
      if (b > balance[creditor]) creditor = s;
    });
    if (balance[debtor] >= 0 || balance[creditor] <= 0) return payments;
    pay(debtor, creditor, Math.min(-balance[debtor], balance[creditor]));
  }
}

// -- actions and deals as a binding sees them --------------------------------------------

/** The action of an `act` request: bad_request when malformed, invalid_card for a name. */
export function actionOf(data) {
  const kind = data.type;
  if (kind === 'call') return Object.freeze({ type: 'call' });
  if (kind === 'throw') {
    if (!('cards' in data)) refuse(ErrorCode.BAD_REQUEST, "throw action needs 'cards'");
    return Object.freeze({ type: 'throw', cards: Object.freeze(parseCards(data.cards)) });
  }
  if (kind === 'pick') {
    if (data.from === 'deck') return Object.freeze({ type: 'pick', source: 'deck', card: null });
    if (data.from === 'offer') {
      if (typeof data.card !== 'string') refuse(ErrorCode.BAD_REQUEST, "pick from the offer needs 'card'");
      return Object.freeze({ type: 'pick', source: 'offer', card: parseCard(data.card) });
    }
    refuse(ErrorCode.BAD_REQUEST, "pick action needs 'from': 'deck' or 'offer'");
  }
  if (kind === 'timeout') return Object.freeze({ type: 'timeout' });
  if (kind === 'slapdown') {
    if (typeof data.card !== 'string') refuse(ErrorCode.BAD_REQUEST, "slapdown action needs 'card'");
    return Object.freeze({ type: 'slapdown', card: parseCard(data.card) });
  }
  return refuse(ErrorCode.BAD_REQUEST, `unknown action type ${JSON.stringify(kind ?? null)}; expected call, throw, pick, timeout or slapdown`);
}

/** The deal's layout (protocol 1.1: `hands`, `turned_up`, `stock`), or null when absent. */
export function dealLayout(request) {
  if (!('hands' in request)) return null;
  const { hands } = request;
  if (!Array.isArray(hands) || !hands.every(Array.isArray)) refuse(ErrorCode.BAD_REQUEST, "'hands' must be an array of card arrays");
  // null: no card turned up (deal.first_offer none); the key itself is still required.
  if (typeof request.turned_up !== 'string' && request.turned_up !== null) refuse(ErrorCode.BAD_REQUEST, "'turned_up' must be a string");
  const parsed = hands.map((h) => parseCards(h, 'hands'));
  const turnedUp = request.turned_up === null ? null : parseCard(request.turned_up);
  if (!Array.isArray(request.stock)) refuse(ErrorCode.BAD_REQUEST, "'stock' must be an array");
  return { hands: parsed, turnedUp, stock: parseCards(request.stock, 'stock') };
}

// -- the tracked engine ----------------------------------------------------------------

// The starts whose profile-wide checks passed, by the binding's support declaration (its
// RULES object, declared once as a static field is): a few kept, each a startKey() with
// what the start resolved from it (see #start).
const PASSED_STARTS = new WeakMap();
const PASSED_KEPT = 64;

function passedStarts(support) {
  if (support === null || typeof support !== 'object') return new Map(); // kept by none
  let keys = PASSED_STARTS.get(support);
  if (keys === undefined || keys.size >= PASSED_KEPT) {
    keys = new Map();
    PASSED_STARTS.set(support, keys);
  }
  return keys;
}

// Deeper than this, a value is not taken for plain JSON data (a cycle never ends).
const PLAIN_DEPTH = 256;

/** Whether `value` is plain JSON data, written by JSON.stringify as it reads: null, a string,
 * a boolean, a finite number, or an array or a plain object (no toJSON) holding only those. */
function plainJson(value, depth = 0) {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'object' || depth > PLAIN_DEPTH || typeof value.toJSON === 'function') return false;
  if (Array.isArray(value)) {
    // Every index, a hole too (undefined: not plain).
    for (let i = 0; i < value.length; i += 1) if (!plainJson(value[i], depth + 1)) return false;
    return true;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const key of Object.keys(value)) if (!plainJson(value[key], depth + 1)) return false;
  return true;
}

/** What a start's profile-wide checks read (the rules, the option list and the options
 * given), as JSON text; null when any of it is not plain JSON data (a caller's object
 * holding undefined, a function, NaN, a class instance or a cycle would read as other data). */
function startKey(document, options) {
  const list = document.options ?? null;
  try {
    if (!plainJson(document.rules) || !plainJson(list) || !plainJson(options)) return null;
    return JSON.stringify([document.rules, list, options]);
  } catch {
    return null;
  }
}

export const Phase = Object.freeze({
  AWAITING_DEAL: 'awaiting_deal',
  CALL_OR_THROW: 'call_or_throw',
  PICK: 'pick',
  AWAITING_RESHUFFLE: 'awaiting_reshuffle',
  ROUND_OVER: 'round_over',
  GAME_OVER: 'game_over',
});
const BETWEEN_HANDS = [Phase.AWAITING_DEAL, Phase.ROUND_OVER];
const IN_TURN = [Phase.CALL_OR_THROW, Phase.PICK];

// The table's fields that a request changes in place: the hands (a seat's list and the list
// of them), the cards out of play (pushed to), the seats out and the multi-throwers. Every
// other field is a number, a string, null or a value replaced whole, never edited (scores,
// active, deck, offer and thrown are assigned new lists; lastRound and result are built
// anew), so a snapshot shares it instead of copying the deck and four lists every act.

/** A copy of the kit's record of a table (restored when a request fails half-way), with a
 * copy of each container a request edits in place. */
const snapshot = (table) => {
  const saved = { ...table };
  saved.hands = table.hands.map((inner) => [...inner]);
  saved.outOfPlay = [...table.outOfPlay];
  saved.outInRound = new Map(table.outInRound);
  saved.multiThrowers = new Set(table.multiThrowers);
  return saved;
};

/** Whether `value` is a promise (or any thenable): a hook's answer the kit awaits. */
export const isThenable = (value) => value !== null
  && (typeof value === 'object' || typeof value === 'function') && typeof value.then === 'function';

/**
 * Run a procedure written as a generator that yields each hook's answer: synchronously
 * while every answer is a plain value (a sync binding pays no promise), and from the first
 * promise on as a promise (an async binding's answers are awaited, a rejection thrown at
 * the yield, so the procedure's own try/catch sees it).
 */
export function drive(procedure) {
  let step = procedure.next();
  while (!step.done) {
    if (isThenable(step.value)) return finishDriving(procedure, step.value);
    step = procedure.next(step.value);
  }
  return step.value;
}

async function finishDriving(procedure, pending) {
  let value = pending;
  for (;;) {
    let ok = true;
    let answer;
    try {
      answer = await value;
    } catch (err) {
      ok = false;
      answer = err;
    }
    const step = ok ? procedure.next(answer) : procedure.throw(answer);
    if (step.done) return step.value;
    value = step.value;
  }
}

/** `f(value)`, or, when `value` is a promise, a promise of it. */
const andThen = (value, f) => (isThenable(value) ? value.then(f) : f(value));

/** The fields of `state`, in the order docs/protocol.md lists them. */
export const STATE_FIELDS = Object.freeze([
  'phase', 'round', 'seats', 'active', 'eliminated', 'dealer', 'starter', 'to_act', 'hands',
  'hand_values', 'offer', 'offer_kind', 'pickable', 'thrown', 'multi_throwers', 'deck',
  'deck_size', 'out_of_play', 'turns_taken', 'scores', 'options', 'last_round', 'result',
]);

/** The observation hooks, each with the state fields it makes the engine's. */
export const OBSERVATIONS = Object.freeze({
  observedHands: Object.freeze(['hands', 'hand_values']),
  observedStarter: Object.freeze(['starter', 'dealer']),
  observedPhase: Object.freeze(['phase']),
  observedGameOver: Object.freeze([]), // the phase and result follow it, with the kit's standings
  observedWinners: Object.freeze([]),
  observedScores: Object.freeze(['scores']),
  observedThrow: Object.freeze(['offer', 'thrown']),
  observedDeck: Object.freeze(['deck', 'deck_size']),
});

// The fields other hooks make the engine's: those every binding implements (the throw's
// kind, the hand's scores), and those whose default it overrides.
const ENGINE_HOOK_FIELDS = Object.freeze({
  onThrow: ['offer_kind'], scoreRound: ['scores'], pickablePositions: ['pickable'],
});

/**
 * The state fields the kit keeps itself, in the protocol's order, for a binding that
 * implements the optional `hooks` (observation hooks and overridden defaults).
 */
export function kitKeptFields(hooks) {
  const engine = new Set();
  for (const hook of ['onThrow', 'scoreRound', ...hooks]) {
    for (const f of [...(OBSERVATIONS[hook] ?? []), ...(ENGINE_HOOK_FIELDS[hook] ?? [])]) engine.add(f);
  }
  if (hooks.includes('observedGameOver') && hooks.includes('observedWinners')) engine.add('result');
  return STATE_FIELDS.filter((f) => !engine.has(f));
}

// Whether the binding `cls` implements hook `name` itself (TrackedEngine's is a default).
const overrides = (cls, name) => typeof cls.prototype[name] === 'function' && cls.prototype[name] !== TrackedEngine.prototype[name];

const seatOf = (table, seat, hook) => {
  if (!Number.isInteger(seat) || seat < 0 || seat >= table.seats) throw new Error(`${hook}() answered ${seat}: no seat of this table`);
  return seat;
};

/**
 * A Backend that keeps everything the protocol reports and an engine need not track, and
 * asks its hooks about the card play. A binding subclasses it, declares `static NAME`,
 * `VERSION` and `RULES` (see `unsupported`), and implements the hooks (cards are protocol
 * names, seats protocol seats). Any hook may be `async` (return a promise): the kit awaits
 * it, and answers requests in order; a binding whose hooks are all synchronous is served
 * synchronously.
 *
 * - `beginGame(rules, seats)`: a table opens; `rules` is the resolved profile's rules.
 * - `beginHand(deal)`: start a hand from the cards as placed: `deal.hands` (per seat,
 *   canonical order), `deal.turnedUp`, `deal.stock` (top card first).
 * - `refusal(seat, action)`: what the engine refuses, `{code, message}` (or a code), or
 *   null; asked after the kit's own checks; must change nothing.
 * - `onCall(seat)`, `onThrow(seat, cards)` (returns 'single', 'set' or 'run'),
 *   `onPick(seat, card, source)`, `onReshuffle(stock)`: apply an accepted action.
 * - `handValue(cards)`: the value of any cards under the engine's rules.
 * - `scoreRound(caller, handValues)`: score the hand just ended (`caller` null: the deck
 *   ran out); returns `{winner, deltas, scores, eliminated}`.
 *
 * Optional: `pickablePositions(offer, kind)` (default: the profile's pick.from_offer),
 * `legalThrows(seat, hand)` (default: `refusal` asked about every sub-multiset of the hand),
 * `settlement(scores)` (default: the profile's money rules).
 *
 * Observation hooks, all optional (`OBSERVATIONS`; the Python kit's `observed_*`): through
 * them a binding reports what its engine decided, and the kit answers with the engine's
 * value instead of its own, so the harness judges it as the engine's. The kit follows
 * `observedThrow()` (the order the throw just made lies in, asked after `onThrow`),
 * `observedGameOver()` (asked after each hand is scored), `observedWinners()` (asked as the
 * game ends) and `observedStarter()` (who starts the next hand, asked once a hand has
 * ended); it reports `observedHands()`, `observedScores()`, `observedDeck()` and
 * `observedPhase()` in `state` (the hands also in the `dealt` event). `hello` lists the
 * state fields the kit still keeps itself (`supports.kit_kept_fields`).
 */
export class TrackedEngine {
  static NAME = 'kit-engine';
  static VERSION = '0.0.0';
  static LANGUAGE = 'javascript';
  static RULES = KIT_RULES;
  // The options the engine lets a host set; null: every option of the profile.
  static OPTIONS = null;

  // The observation hooks this binding implements, read at their first use (as `hello`'s
  // kit_kept_fields are, once a session): each request asks about several.
  #observed = null;

  constructor() {
    this.table = null;
    this.rules = {}; // the resolved rules of this (or the next) hand
    this.kitRules = null;
  }

  /** What `hello` answers. */
  static info() {
    const hooks = [...this.observedHooks(), ...['pickablePositions'].filter((h) => overrides(this, h))];
    return { name: this.NAME, version: this.VERSION, language: this.LANGUAGE, kitKeptFields: kitKeptFields(hooks) };
  }

  /** The observation hooks the binding implements (`OBSERVATIONS`). */
  static observedHooks() {
    return Object.keys(OBSERVATIONS).filter((name) => overrides(this, name));
  }

  #observes(name) {
    if (this.#observed === null) this.#observed = new Set(this.constructor.observedHooks());
    return this.#observed.has(name);
  }

  // -- hooks a binding implements -------------------------------------------------------

  beginGame() {}

  beginHand() { throw new Error('the binding implements no beginHand(deal) hook'); }

  refusal() { return null; }

  onCall() {}

  onThrow() { throw new Error('the binding implements no onThrow(seat, cards) hook'); }

  onPick() {}

  onReshuffle() {}

  handValue() { throw new Error('the binding implements no handValue(cards) hook'); }

  scoreRound() { throw new Error('the binding implements no scoreRound(caller, handValues) hook'); }

  settlement(scores) {
    return this.kitRules.money ? settlement(scores, this.kitRules.money) : null;
  }

  // -- observation hooks: what the engine decided (optional; asked only when implemented) --

  /** Every seat's hand as the engine holds it now (any order; a seat out holds none). */
  observedHands() { throw new Error('the binding implements no observedHands() hook'); }

  /** The seat the engine has start the next hand; asked once a hand has ended. */
  observedStarter() { throw new Error('the binding implements no observedStarter() hook'); }

  /** The engine's phase now; asked whenever the kit answers `state`. */
  observedPhase() { throw new Error('the binding implements no observedPhase() hook'); }

  /** Whether the engine's game is over; asked after each hand is scored. */
  observedGameOver() { throw new Error('the binding implements no observedGameOver() hook'); }

  /** The seats the engine has win; asked as the game ends. */
  observedWinners() { throw new Error('the binding implements no observedWinners() hook'); }

  /** Each seat's total as the engine keeps it; asked whenever the kit answers `state`. */
  observedScores() { throw new Error('the binding implements no observedScores() hook'); }

  /** The cards of the throw just made, in the order the engine lays them (the last on top). */
  observedThrow() { throw new Error('the binding implements no observedThrow() hook'); }

  /** The engine's deck now, top card first; asked whenever the kit answers `state`. */
  observedDeck() { throw new Error('the binding implements no observedDeck() hook'); }

  * #observedHands() {
    const hands = (yield this.observedHands()).map((h) => canonical(h));
    if (hands.length !== this.table.seats) throw new Error(`observedHands() gave ${hands.length} hands for a table of ${this.table.seats} seats`);
    return hands;
  }

  pickablePositions(offer, kind) {
    return pickablePositions({ cards: offer, kind }, this.kitRules);
  }

  legalThrows(seat, hand) {
    return drive(this.#legalThrowsByRefusal(seat, hand));
  }

  * #legalThrowsByRefusal(seat, hand) {
    const ordered = canonical(hand);
    const found = new Map();
    for (let mask = 1; mask < 1 << ordered.length; mask += 1) {
      // throws.run.order ascending: a run is asked about as it must be placed, lowest first.
      const subset = ordered.filter((_, i) => mask & (1 << i));
      const cards = this.kitRules.runOrder === 'ascending' ? ascendingRun(subset, this.kitRules) : subset;
      const key = cards.join(' ');
      if (!found.has(key) && (yield* this.#refusalOf(seat, Object.freeze({ type: 'throw', cards }))) === null) found.set(key, cards);
    }
    return [...found.values()];
  }

  // -- the Backend: start and options ---------------------------------------------------

  start(document, options, seats) {
    return drive(this.#start(document, options, seats));
  }

  * #start(document, options, seats) {
    const support = this.constructor.RULES;
    const allowed = this.constructor.OPTIONS;
    // The order of checks for start: the profile, then the option names, then the values,
    // then the seat count. The parameters options set are checked once resolved.
    if (!isObject(document.rules)) refuse(ErrorCode.INVALID_PROFILE, 'the profile has no rules');
    // A harness starts the same profile for every case of a ruleset: the checks of a profile
    // and options that passed once are passed again at once (a refusal is always made anew).
    const passed = passedStarts(support);
    const key = startKey(document, options);
    const known = key === null ? undefined : passed.get(key);
    const check = (name) => {
      if (allowed != null && !allowed.includes(name)) refuse(ErrorCode.UNSUPPORTED_OPTION, `this engine has no option ${name}`);
    };
    let profile;
    let specs;
    if (known === undefined) {
      readRules(document.rules);
      const targets = [...optionSpecs(document).values()].flatMap((s) => s.targets);
      const fixed = unsupported(document.rules, support, targets) ?? kitUnplayed(document.rules, targets);
      if (fixed !== null) refuse(ErrorCode.UNSUPPORTED_PROFILE, fixed);
      ({ profile, specs } = resolveProfile(document, options, check));
      refuseUnsupported(profile.rules, specs, support);
    } else {
      // The same rules, option list and options resolved before: every option name is the
      // profile's and every value allowed, so only the engine's own option list is asked
      // about; the rules and the option list are new copies, as resolveProfile makes.
      for (const name of Object.keys(options)) check(name);
      ({ specs } = known);
      profile = { ...document };
      if ('rules' in profile) profile.rules = JSON.parse(known.rules);
      // (null and undefined are their own copies, and read alike in the key.)
      if ('options' in profile) profile.options = document.options == null ? document.options : JSON.parse(known.options);
      profile.option_values = { ...known.values };
    }
    const rules = readRules(profile.rules);
    if (!Number.isInteger(seats) || seats < rules.seatsMin || seats > rules.seatsMax) {
      refuse(ErrorCode.INVALID_SEATS, `seats must be ${rules.seatsMin} to ${rules.seatsMax}, not ${seats}`);
    }
    if (known === undefined) {
      // Checks of the resolved rules alone: passed once, passed again.
      for (let n = rules.seatsMin; n <= rules.seatsMax; n += 1) {
        if (n * rules.handSize + 2 > tableDeck(packsFor(rules, n), rules.jokersPerPack, rules.ranksLeftOut).length) {
          refuse(ErrorCode.INVALID_PROFILE, `rules.hand_size: ${n} hands and a turned-up card need more cards than the deck holds`);
        }
      }
      if (rules.gameEnd === 'fixed_rounds' && !rules.rounds) refuse(ErrorCode.INVALID_PROFILE, 'rules.game_end.rounds: fixed_rounds needs a number of rounds');
      if (key !== null) {
        passed.set(key, {
          specs,
          rules: JSON.stringify(profile.rules),
          options: JSON.stringify(profile.options ?? null),
          values: { ...profile.option_values },
        });
      }
    }
    const previous = [this.table, this.rules, this.kitRules, this.document, this.specs, this.profile];
    this.document = document;
    this.specs = specs;
    this.profile = profile;
    this.rules = profile.rules;
    this.kitRules = rules;
    this.table = {
      seats,
      phase: Phase.AWAITING_DEAL,
      round: 0,
      scores: Array(seats).fill(0),
      active: Array.from({ length: seats }, (_, s) => s),
      outInRound: new Map(), // seat -> the round it went out, in the order out
      starter: rules.firstStarter % seats,
      toAct: null,
      hands: Array.from({ length: seats }, () => []),
      deck: [], // top card first
      offer: [],
      offerKind: null,
      thrown: [],
      thrownKind: null, // null: no throw waits for its pick
      outOfPlay: [],
      drawWaiting: null, // the seat whose draw waits for a new deck
      timeoutWaiting: null, // the seat whose timeout pick waits for a new deck
      turnsTaken: 0,
      multiThrowers: new Set(),
      lastRound: null,
      result: null,
    };
    try {
      yield this.beginGame(this.rules, seats);
    } catch (err) {
      [this.table, this.rules, this.kitRules, this.document, this.specs, this.profile] = previous;
      throw err;
    }
  }

  setOption(name, value) {
    const t = this.table;
    const spec = this.specs.get(name);
    if (!spec) refuse(ErrorCode.UNKNOWN_OPTION, `unknown option ${JSON.stringify(name)}; this profile's options: ${[...this.specs.keys()].join(', ') || 'none'}`);
    if (!BETWEEN_HANDS.includes(t.phase)) refuse(ErrorCode.WRONG_PHASE, 'options change only between hands');
    if (spec.changes === 'at_start_only') refuse(ErrorCode.OPTION_LOCKED, `option ${name} is locked once the table is open`);
    if (spec.changes === 'before_first_deal' && t.round > 0) refuse(ErrorCode.OPTION_LOCKED, `option ${name} is locked once the first hand is dealt`);
    const allowed = this.constructor.OPTIONS;
    if (allowed != null && !allowed.includes(name)) refuse(ErrorCode.UNSUPPORTED_OPTION, `this engine has no option ${name}`);
    const { profile } = resolveProfile(this.document, { ...this.profile.option_values, [name]: value });
    refuseUnsupported(profile.rules, this.specs, this.constructor.RULES, name);
    this.kitRules = readRules(profile.rules);
    this.profile = profile;
    this.rules = profile.rules;
    return [{ type: 'option_changed', name, value: profile.option_values[name] }];
  }

  // -- the Backend: deals ---------------------------------------------------------------

  deal(deck, layout) {
    return drive(this.#deal(deck, layout));
  }

  * #deal(deck, layout) {
    const t = this.table;
    const kit = this.kitRules;
    if (!BETWEEN_HANDS.includes(t.phase)) refuse(ErrorCode.WRONG_PHASE, `cannot deal in phase ${t.phase}`);
    const packs = packsFor(kit, t.seats);
    const full = tableDeck(packs, kit.jokersPerPack, kit.ranksLeftOut);
    if (!sameCards(deck, full)) {
      refuse(ErrorCode.INVALID_DECK, full.length === 52 ? 'deal needs each of the 52 cards exactly once'
        : `deal needs the table's ${full.length} cards: ${packs} pack(s) of ${52 - 4 * kit.ranksLeftOut.length} with ${kit.jokersPerPack} joker(s) each`);
    }
    const order = turnOrderFrom(t, t.starter);
    const size = kit.handSize;
    let hands;
    let turnedUp;
    let stock;
    if (layout) {
      const shaped = layout.hands.length === t.seats
        && layout.hands.every((h, s) => h.length === (t.active.includes(s) ? size : 0));
      const placed = [...layout.hands.flat(), ...(layout.turnedUp === null ? [] : [layout.turnedUp]), ...layout.stock];
      if (!shaped || (layout.turnedUp === null) === kit.turnsUpFirstOffer || !sameCards(placed, deck)) {
        const turned = kit.turnsUpFirstOffer ? 'turned_up' : 'turned_up (null)';
        refuse(ErrorCode.INVALID_DECK, `the deal's hands, ${turned} and stock must hold the deck's cards: ${size} to each seat in play, none to a seat that is out`);
      }
      hands = layout.hands.map((h) => [...h]);
      ({ turnedUp } = layout);
      stock = [...layout.stock];
    } else {
      hands = Array.from({ length: t.seats }, () => []);
      deck.slice(0, size * order.length).forEach((card, i) => hands[order[i % order.length]].push(card));
      const cut = size * order.length;
      turnedUp = kit.turnsUpFirstOffer ? deck[cut] : null;
      stock = deck.slice(kit.turnsUpFirstOffer ? cut + 1 : cut);
    }
    const round = t.round + 1;
    const dealer = dealerOf(t, kit);
    const placed = Object.freeze({
      round, starter: t.starter, dealer, turnOrder: Object.freeze([...order]),
      hands: Object.freeze(hands.map((h) => Object.freeze(canonical(h)))), turnedUp, stock: Object.freeze([...stock]),
    });
    yield this.beginHand(placed);
    Object.assign(t, {
      // With no card turned up the first player has nothing to pick from: their throw is the first offer.
      round, hands: placed.hands.map((h) => [...h]), deck: stock,
      offer: turnedUp === null ? [] : [turnedUp], offerKind: turnedUp === null ? null : 'single',
      thrown: [], thrownKind: null, outOfPlay: [], drawWaiting: null, timeoutWaiting: null, turnsTaken: 0,
      // A seat's throws of two or more cards count for the hand (or the turn) only, unless
      // pick.multi_throw_scope keeps them for the game.
      multiThrowers: kit.multiThrowScope === 'game' ? t.multiThrowers : new Set(),
      toAct: t.starter, phase: Phase.CALL_OR_THROW,
    });
    const dealt = this.#observes('observedHands') ? yield* this.#observedHands() : placed.hands.map((h) => [...h]);
    return [
      { type: 'round_started', round, dealer, starter: t.starter, turn_order: order },
      { type: 'dealt', hands: dealt, turned_up: turnedUp, deck_size: stock.length },
    ];
  }

  // -- the Backend: turns ---------------------------------------------------------------

  act(seat, action) {
    const t = this.table;
    if (!Number.isInteger(seat) || seat < 0 || seat >= t.seats) refuse(ErrorCode.INVALID_SEAT, `no seat ${seat} at this table`);
    if (!IN_TURN.includes(t.phase)) refuse(ErrorCode.WRONG_PHASE, `no turn is in progress (phase ${t.phase})`);
    // throws.slapdown is played only at none (KIT_PLAYS): no slapdown is ever open.
    if (action.type === 'slapdown') refuse(ErrorCode.SLAPDOWN_NOT_ALLOWED, 'this table does not play slapdown (throws.slapdown none)');
    if (seat !== t.toAct) refuse(ErrorCode.NOT_YOUR_TURN, `it is seat ${t.toAct}'s turn, not seat ${seat}'s`);
    return drive(this.#atomic(this.#play(seat, action)));
  }

  /** Run `procedure` so that, if it throws, the kit's record is left as it was. */
  * #atomic(procedure) {
    const saved = snapshot(this.table);
    try {
      return yield* procedure;
    } catch (err) {
      this.table = saved;
      throw err;
    }
  }

  * #play(seat, action) {
    const t = this.table;
    if (action.type === 'call') {
      this.#require(Phase.CALL_OR_THROW, 'call (calls come before the throw)');
      yield* this.#ask(seat, action);
      const value = yield this.handValue([...t.hands[seat]]);
      yield this.onCall(seat);
      return [{ type: 'called', seat, value }, ...(yield* this.#endRound(seat))];
    }
    if (action.type === 'throw') {
      this.#require(Phase.CALL_OR_THROW, 'throw (one throw a turn)');
      this.#checkThrow(seat, action.cards);
      yield* this.#ask(seat, action);
      return yield* this.#throw(seat, action.cards);
    }
    if (action.type === 'pick') {
      this.#require(Phase.PICK, 'pick');
      if (action.source === 'offer') yield* this.#checkOfferPick(seat, action.card);
      yield* this.#ask(seat, action);
      return yield* this.#pick(seat, action.source === 'offer' ? action.card : null);
    }
    return yield* this.#timeout(seat);
  }

  #require(phase, what) {
    if (this.table.phase !== phase) refuse(ErrorCode.WRONG_PHASE, `cannot ${what} in phase ${this.table.phase}`);
  }

  /** The engine's refusal of `action` by `seat` as {code, message}, or null. */
  * #refusalOf(seat, action) {
    const found = yield this.refusal(seat, action);
    if (found === null || found === undefined || found === false) return null;
    if (typeof found === 'string') return { code: found, message: `the engine refuses this ${action.type}` };
    return found;
  }

  * #ask(seat, action) {
    const found = yield* this.#refusalOf(seat, action);
    if (found !== null) refuse(found.code, found.message);
  }

  #checkThrow(seat, cards) {
    const hand = this.table.hands[seat];
    const missing = cards.filter((c) => !hand.includes(c));
    if (missing.length) refuse(ErrorCode.CARD_NOT_IN_HAND, `seat ${seat} does not hold ${missing.join(', ')}`);
    const held = counts(hand);
    if (!cards.length || [...counts(cards)].some(([c, n]) => n > held.get(c))) {
      refuse(ErrorCode.ILLEGAL_THROW, `${cards.join(' ') || 'nothing'} is not a single, a set of one rank or a run`);
    }
  }

  * #throw(seat, cards) {
    const t = this.table;
    const kind = yield this.onThrow(seat, [...cards]);
    if (!['single', 'set', 'run'].includes(kind)) throw new Error(`onThrow must name the throw: 'single', 'set' or 'run', not ${kind}`);
    t.hands[seat] = withoutCards(t.hands[seat], cards);
    t.thrown = this.#observes('observedThrow') ? [...(yield this.observedThrow())] : laidCards(cards, kind, this.kitRules);
    t.thrownKind = kind;
    if (cards.length >= 2) t.multiThrowers.add(seat);
    t.phase = Phase.PICK;
    const events = [{ type: 'thrown', seat, cards: [...t.thrown], kind }];
    if (!t.deck.length && this.kitRules.deckRunsOut === 'reshuffle'
      && this.kitRules.reshuffleMoment === 'at_throw_after_deck_emptied') {
      // The deck is remade now, before the pick, whichever way the seat then picks.
      yield* this.#keepAsideFromOffer();
      t.phase = Phase.AWAITING_RESHUFFLE;
      events.push({ type: 'reshuffle_needed', cards: canonical(t.outOfPlay) });
    }
    return events;
  }

  /** The positions of the offer the pick rule lets be taken. */
  * #pickablePositions() {
    const t = this.table;
    if (t.offerKind === null) return [];
    return yield this.pickablePositions([...t.offer], t.offerKind);
  }

  * #pickable() {
    const t = this.table;
    return (yield* this.#pickablePositions()).map((i) => t.offer[i]);
  }

  /** The cards of the offer the pick rule lets be taken, as placed. */
  pickable() {
    return drive(this.#pickable());
  }

  /** Whether `seat` may pick from the offer at all (the multi-throw house rule). */
  offerOpenTo(seat) {
    return !this.kitRules.onlyAfterMultiThrow || this.table.multiThrowers.has(seat);
  }

  * #checkOfferPick(seat, card) {
    if (this.table.offerKind === null) refuse(ErrorCode.CARD_NOT_ON_OFFER, `${card} is not on offer: no card is on offer before the hand's first throw`);
    if (!this.table.offer.includes(card)) refuse(ErrorCode.CARD_NOT_ON_OFFER, `${card} is not on offer`);
    if (!this.offerOpenTo(seat)) refuse(ErrorCode.PICK_NOT_ALLOWED, `thrown cards may be picked only after throwing two or more cards together ${MULTI_THROW_WHEN[this.kitRules.multiThrowScope] ?? 'this round'}`);
    const allowed = yield* this.#pickable();
    if (!allowed.includes(card)) refuse(ErrorCode.PICK_NOT_ALLOWED, `${card} may not be picked from this throw; allowed: ${allowed.join(', ')}`);
  }

  * #pick(seat, card) {
    const t = this.table;
    const kit = this.kitRules;
    if (card === null && !t.deck.length) {
      // deck_runs_out_when draw_finds_deck_empty: this draw ends the hand.
      if (endsHandAtEmptyDraw(kit)) return yield* this.#endRound(null);
      return yield* this.#awaitNewDeck(seat);
    }
    let rest = [...t.offer];
    let events;
    if (card === null) {
      card = t.deck[0];
      yield this.onPick(seat, card, 'deck');
      t.deck = t.deck.slice(1);
      events = [{ type: 'picked', seat, from: 'deck', card }];
    } else {
      yield this.onPick(seat, card, 'offer');
      rest = withoutCards(rest, [card]); // one copy: with several packs the offer may repeat a card
      events = [{ type: 'picked', seat, from: 'offer', card }];
    }
    t.hands[seat].push(card);
    const held = yield* this.#heldBack(rest);
    if (held.size) {
      // The previous throw's takeable cards stay out of the new deck made at once; they
      // wait on offer, beside the throw just made, until the reshuffle.
      rest = t.offer.filter((_, i) => !held.has(i));
      t.offer = t.offer.filter((_, i) => held.has(i));
    }
    if (rest.length && kit.deckRunsOut === 'offer_under_deck') {
      // The cards leaving play go under the deck at once, as placed: the first placed
      // nearest the top (the deck is kept top first), so the deck never runs out.
      t.deck = [...t.deck, ...rest];
      events.push({ type: 'under_deck', cards: [...rest] });
    } else {
      t.outOfPlay.push(...rest);
      if (rest.length) events.push({ type: 'out_of_play', cards: canonical(rest) });
    }
    if (!held.size) {
      t.offer = t.thrown;
      t.offerKind = t.thrownKind;
      t.thrown = [];
      t.thrownKind = null;
    }
    t.turnsTaken += 1;
    t.toAct = nextActive(t, seat);
    // pick.multi_throw_scope turn: this turn's throw opened the offer for this turn's pick only.
    if (kit.multiThrowScope === 'turn') t.multiThrowers = new Set();
    if (t.deck.length) {
      t.phase = Phase.CALL_OR_THROW;
    } else if (endsHandAtLastCard(kit)) {
      events.push(...(yield* this.#endRound(null)));
    } else if (kit.deckRunsOut !== 'reshuffle' || kit.reshuffleMoment !== 'when_deck_emptied') {
      t.phase = Phase.CALL_OR_THROW; // the deck is remade at the next draw or throw
    } else {
      t.phase = Phase.AWAITING_RESHUFFLE;
      events.push({ type: 'reshuffle_needed', cards: canonical(t.outOfPlay) });
    }
    return events;
  }

  /**
   * The positions of the offer kept out of a deck remade as this pick empties it: under
   * reshuffle.moment when_deck_emptied with kept_aside pickable_and_throw, after a draw of
   * the deck's last card, the previous throw's takeable cards (with offer_and_card_under,
   * its top card, under the throw just made); none when the new deck would then hold no
   * card at all.
   */
  * #heldBack(rest) {
    const t = this.table;
    const kit = this.kitRules;
    if (t.deck.length || kit.deckRunsOut !== 'reshuffle' || kit.reshuffleMoment !== 'when_deck_emptied'
      || !['pickable_and_throw', 'offer_and_card_under'].includes(kit.keptAside)
      || rest.length !== t.offer.length) return new Set();
    const held = kit.keptAside === 'offer_and_card_under'
      ? new Set([t.offer.length - 1])
      : new Set(yield* this.#pickablePositions());
    if (!t.outOfPlay.length && held.size === t.offer.length) return new Set();
    return held;
  }

  /** With kept_aside pickable_and_throw, the offer's cards that cannot be taken join the
   * new deck (by position: with two packs or two jokers a name can be both). */
  * #keepAsideFromOffer() {
    const t = this.table;
    if (this.kitRules.keptAside !== 'pickable_and_throw' || t.offerKind === null) return;
    const keep = new Set(yield* this.#pickablePositions());
    t.outOfPlay.push(...t.offer.filter((_, i) => !keep.has(i)));
    t.offer = t.offer.filter((_, i) => keep.has(i));
  }

  * #awaitNewDeck(seat) {
    const t = this.table;
    yield* this.#keepAsideFromOffer();
    t.drawWaiting = seat;
    t.phase = Phase.AWAITING_RESHUFFLE;
    return [{ type: 'reshuffle_needed', cards: canonical(t.outOfPlay) }];
  }

  * #timeout(seat) {
    const t = this.table;
    const kit = this.kitRules;
    if (kit.timerSeconds <= 0) refuse(ErrorCode.TIMER_OFF, 'the turn timer is off at this table');
    const weights = new Map();
    for (const c of new Set(t.hands[seat])) weights.set(c, [yield this.handValue([c]), rankOf(c), SORT_KEY.get(c)]);
    const events = [{ type: 'timed_out', seat }];
    if (t.phase === Phase.CALL_OR_THROW) {
      const heavier = (a, b) => compareKeys(weights.get(a), weights.get(b)) > 0;
      // The timer's single is forced: the engine's refusal (throws.single) is not asked.
      events.push(...(yield* this.#throw(seat, [t.hands[seat].reduce((best, c) => (heavier(c, best) ? c : best))])));
      if (t.phase === Phase.AWAITING_RESHUFFLE) {
        // The deck is remade at this throw; the timeout's pick follows the reshuffle.
        t.timeoutWaiting = seat;
        return events;
      }
    }
    return [...events, ...(yield* this.#timeoutPick(seat))];
  }

  /** A timeout's pick: the lowest takeable card (take_lowest) or the deck's top. */
  * #timeoutPick(seat) {
    let take = null;
    if (this.kitRules.timerExpiry === 'throw_highest_single_then_take_lowest' && this.offerOpenTo(seat)) {
      let best = null;
      for (const c of yield* this.#pickable()) {
        const weight = [yield this.handValue([c]), rankOf(c), SORT_KEY.get(c)];
        if (best === null || compareKeys(weight, best[1]) < 0) best = [c, weight];
      }
      take = best?.[0] ?? null;
    }
    return yield* this.#pick(seat, take);
  }

  reshuffle(order) {
    const t = this.table;
    if (t.phase !== Phase.AWAITING_RESHUFFLE) refuse(ErrorCode.WRONG_PHASE, `no reshuffle is due (phase ${t.phase})`);
    if (!sameCards(order, t.outOfPlay)) {
      refuse(ErrorCode.INVALID_RESHUFFLE, `reshuffle order must hold exactly the cards out of play: ${canonical(t.outOfPlay).join(' ')}`);
    }
    return drive(this.#atomic(this.#reshuffle(order)));
  }

  * #reshuffle(order) {
    const t = this.table;
    yield this.onReshuffle(Object.freeze([...order]));
    t.deck = [...order];
    t.outOfPlay = [];
    t.phase = Phase.CALL_OR_THROW;
    const events = [{ type: 'reshuffled', deck_size: t.deck.length }];
    if (t.drawWaiting !== null) {
      const seat = t.drawWaiting;
      t.drawWaiting = null;
      t.phase = Phase.PICK;
      events.push(...(yield* this.#pick(seat, null)));
    } else if (t.thrownKind !== null && t.toAct !== null) {
      if (this.kitRules.reshuffleMoment === 'when_deck_emptied') {
        // The previous throw's cards held back from the new deck go out of play now.
        const held = [...t.offer];
        t.outOfPlay.push(...held);
        t.offer = t.thrown;
        t.offerKind = t.thrownKind;
        t.thrown = [];
        t.thrownKind = null;
        events.push({ type: 'out_of_play', cards: canonical(held) });
      } else { // at_throw_after_deck_emptied: the seat that threw picks now
        t.phase = Phase.PICK;
        if (t.timeoutWaiting !== null) {
          const seat = t.timeoutWaiting;
          t.timeoutWaiting = null;
          events.push(...(yield* this.#timeoutPick(seat)));
        }
      }
    }
    return events;
  }

  // -- the end of a hand and of the game ------------------------------------------------

  * #endRound(caller) {
    const t = this.table;
    const kit = this.kitRules;
    const values = [];
    for (let s = 0; s < t.seats; s += 1) values.push(t.active.includes(s) ? yield this.handValue([...t.hands[s]]) : null);
    const score = yield this.scoreRound(caller, values);
    if (score?.deltas?.length !== t.seats || score?.scores?.length !== t.seats) {
      throw new Error('scoreRound must give deltas and scores for every seat');
    }
    const outcome = caller === null ? 'deck_ran_out' : score.winner === caller ? 'won_call' : 'beaten_call';
    const out = [...(score.eliminated ?? [])].sort((a, b) => a - b);
    t.scores = [...score.scores];
    t.lastRound = {
      round: t.round,
      outcome,
      caller,
      winner: caller === null ? null : score.winner,
      hand_values: values,
      deltas: [...score.deltas],
      scores: [...score.scores],
      eliminated: out,
    };
    const events = [{ type: 'round_ended', ...t.lastRound }];
    let next = this.#nextStarter(caller, t.lastRound.winner, out);
    for (const s of out) {
      t.active = t.active.filter((a) => a !== s);
      t.outInRound.set(s, t.round);
      t.hands[s] = [];
    }
    if (!t.active.includes(next)) next = nextActive(t, next);
    t.starter = next;
    t.toAct = null;
    t.phase = Phase.ROUND_OVER;
    const over = this.#observes('observedGameOver') ? Boolean(yield this.observedGameOver())
      : gameOverAfterRound(t.round, t.scores, t.active, kit);
    if (over) events.push(...(yield* this.#finishGame()));
    if (this.#observes('observedStarter')) t.starter = seatOf(t, yield this.observedStarter(), 'observedStarter');
    return events;
  }

  #nextStarter(caller, winner, out) {
    const t = this.table;
    const rule = this.kitRules.nextStarter;
    // deal.first_starter starts every hand; a seat that is out passes it on (below).
    if (rule === 'first_starter') return this.kitRules.firstStarter % t.seats;
    if (winner !== null && winner !== undefined && !out.includes(winner)) {
      if (rule === 'round_winner') return winner;
      if (rule === 'seat_after_round_winner') return nextActive(t, winner);
    }
    if (rule === 'caller' && caller !== null && !out.includes(caller)) return caller;
    return nextActive(t, t.starter);
  }

  endGame() {
    if (this.kitRules.gameEnd !== 'host_ends') refuse(ErrorCode.GAME_NOT_ENDABLE, "this profile's game ends by its own rules, not by the host");
    if (!BETWEEN_HANDS.includes(this.table.phase)) refuse(ErrorCode.WRONG_PHASE, 'the table can be ended only between hands');
    return drive(this.#atomic(this.#finishGame()));
  }

  * #finishGame() {
    const t = this.table;
    const kit = this.kitRules;
    const oneHand = kit.gameEnd === 'one_hand' && t.lastRound !== null;
    const engineWinners = this.#observes('observedWinners') ? [...(yield this.observedWinners())] : null;
    t.result = {
      winners: engineWinners ?? (oneHand ? handWinners(t.lastRound) : winners(t.scores, t.active, kit)),
      standings: oneHand ? handStandings(t.lastRound) : standings(t.scores, t.outInRound, kit),
      scores: [...t.scores],
      eliminated: [...t.outInRound.keys()],
      settlement: yield this.settlement([...t.scores]),
    };
    t.phase = Phase.GAME_OVER;
    t.toAct = null;
    return [{ type: 'game_ended', ...t.result }];
  }

  // -- views ------------------------------------------------------------------------------

  state() {
    return drive(this.#state());
  }

  * #state() {
    const t = this.table;
    const state = yield* this.#keptState();
    // The engine's own values in place of the kit's, for the harness to judge.
    if (this.#observes('observedHands')) {
      state.hands = yield* this.#observedHands();
      state.hand_values = [];
      for (const h of state.hands) state.hand_values.push(h.length ? yield this.handValue([...h]) : 0);
    }
    if (this.#observes('observedScores')) state.scores = [...(yield this.observedScores())];
    if (this.#observes('observedDeck')) {
      state.deck = [...(yield this.observedDeck())];
      state.deck_size = state.deck.length;
    }
    if (this.#observes('observedPhase')) state.phase = String(yield this.observedPhase());
    return state;
  }

  * #keptState() {
    const t = this.table;
    const handValues = [];
    for (const h of t.hands) handValues.push(h.length ? yield this.handValue([...h]) : 0);
    return {
      phase: t.phase,
      round: t.round,
      seats: t.seats,
      active: [...t.active],
      eliminated: [...t.outInRound.keys()],
      dealer: dealerOf(t, this.kitRules),
      starter: t.starter,
      to_act: t.toAct,
      hands: t.hands.map(canonical),
      hand_values: handValues,
      offer: [...t.offer],
      offer_kind: t.offerKind,
      pickable: yield* this.#pickable(),
      thrown: [...t.thrown],
      multi_throwers: [...t.multiThrowers].sort((a, b) => a - b),
      deck: [...t.deck],
      deck_size: t.deck.length,
      out_of_play: canonical(t.outOfPlay),
      turns_taken: t.turnsTaken,
      scores: [...t.scores],
      options: { ...this.profile.option_values },
      last_round: t.lastRound,
      result: t.result,
    };
  }

  legal() {
    return drive(this.#legal());
  }

  * #legal() {
    const t = this.table;
    const seat = t.toAct;
    if (!IN_TURN.includes(t.phase) || seat === null) return null;
    if (t.phase === Phase.CALL_OR_THROW) {
      const found = yield this.legalThrows(seat, [...t.hands[seat]]);
      const throws = found.map((c) => [...c]).sort((a, b) => a.length - b.length || compareCards(a, b));
      const call = (yield* this.#refusalOf(seat, Object.freeze({ type: 'call' }))) === null;
      return { seat, call, throws, picks: [] };
    }
    const picks = [{ from: 'deck' }];
    if (this.offerOpenTo(seat)) picks.push(...[...new Set(yield* this.#pickable())].map((card) => ({ from: 'offer', card })));
    return { seat, call: false, throws: [], picks };
  }
}

function compareKeys(x, y) {
  for (let i = 0; i < x.length; i += 1) if (x[i] !== y[i]) return x[i] - y[i];
  return 0;
}

function compareCards(a, b) {
  return compareKeys(a.map((c) => SORT_KEY.get(c)), b.map((c) => SORT_KEY.get(c)));
}

/** The next seat in play after `seat`. */
export function nextActive(table, seat) {
  for (let step = 1; step <= table.seats; step += 1) {
    const candidate = (seat + step) % table.seats;
    if (table.active.includes(candidate)) return candidate;
  }
  throw new Error('no seat in play');
}

/** The seats in play in turn order from `first`. */
export function turnOrderFrom(table, first) {
  return [...table.active].sort((a, b) => ((a - first + table.seats) % table.seats) - ((b - first + table.seats) % table.seats));
}

function dealerOf(table, rules) {
  if (rules.dealer === 'none') return null;
  return turnOrderFrom(table, table.starter).at(-1);
}

// -- a game loop as an engine ----------------------------------------------------------

/** The loop's table was replaced by a new `start`: its pending `wait` rejects with this. */
export class LoopAbandoned extends Error {
  constructor() {
    super('the game loop was abandoned: a new loop started');
    this.name = 'LoopAbandoned';
  }
}

const loopToken = new AsyncLocalStorage();
const sameDecision = (a, b) => a !== null && b !== null && a[0] === b[0] && a[1] === b[1];
const describeDecision = (d) => (d === null ? 'nothing (it is busy or has ended)' : d[0] === null ? d[1] : `${d[1]} of seat ${d[0]}`);

/**
 * Serve an engine written as one async game loop (the Python kit's LoopDriver, with
 * promises): the loop shuffles, deals, asks each player for a move, and loops. The
 * loop's stand-in player calls `await driver.wait(seat, decision)` and gets the protocol's
 * move for that decision; the binding's (async) hooks call `await driver.send(seat,
 * decision, move)`, which hands the move over and settles once the loop waits for its next
 * decision (or has ended). A decision is a short name of the binding's choosing ('deal',
 * 'turn', 'pick', 'reshuffle'...). The loop asking the same decision of the same seat again
 * straight after a move means it refused the move: `send` rejects with Refused, the code
 * the binding gave for that decision in `refused` (default bad_request), the message the
 * loop noted with `driver.refuse(message)`. A new `start` abandons the old loop: its
 * pending `wait` rejects with LoopAbandoned.
 */
export class LoopDriver {
  #listeners = [];

  #resume = null;

  constructor({ refused = {}, timeout = 20 } = {}) {
    this.refused = { ...refused }; // the code a re-asked decision means, by decision name
    this.timeout = timeout; // seconds the protocol side waits for the loop
    this.token = 0;
    this.waitingFor = null;
    this.asks = 0;
    this.isEnded = true;
    this.failure = null;
    this.lastMessage = ''; // why the engine refused the last move, when the loop said
  }

  /** Run `loop(driver)` (an async function), abandoning any running loop; settles once it
   * asks for its first decision or ends. */
  async start(loop) {
    this.token += 1;
    const token = this.token;
    if (this.#resume !== null) {
      const { reject } = this.#resume;
      this.#resume = null;
      reject(new LoopAbandoned());
    }
    Object.assign(this, { waitingFor: null, isEnded: false, failure: null });
    const asks = this.asks;
    const finished = (failure) => {
      if (failure instanceof LoopAbandoned || this.token !== token) return;
      Object.assign(this, { isEnded: true, waitingFor: null, failure });
      this.#changed();
    };
    loopToken.run(token, () => {
      Promise.resolve().then(() => loop(this)).then(() => finished(null), (err) => finished(err ?? new Error('failed')));
    });
    await this.#until(() => this.asks !== asks || this.isEnded);
    this.#raiseFailure();
  }

  /** The decision the loop waits for, [seat, name], or null when it is not waiting. */
  waiting() {
    return this.waitingFor === null ? null : [...this.waitingFor];
  }

  get ended() {
    return this.isEnded;
  }

  /** Hand `move` to the loop waiting for `decision` of `seat`; settles once it waits for its
   * next decision or ends; Refused when it asks the same again. */
  async send(seat, decision, move) {
    if (!sameDecision(this.waitingFor, [seat, decision])) {
      throw new Error(`the game loop waits for ${describeDecision(this.waitingFor)}, not ${describeDecision([seat, decision])}`);
    }
    const asks = this.asks;
    this.lastMessage = '';
    const { resolve } = this.#resume;
    this.#resume = null;
    this.waitingFor = null;
    resolve(move);
    await this.#until(() => this.asks !== asks || this.isEnded);
    this.#raiseFailure();
    if (sameDecision(this.waitingFor, [seat, decision])) {
      throw new Refused(this.refused[decision] ?? ErrorCode.BAD_REQUEST, this.lastMessage || `the engine refused ${decision} ${JSON.stringify(move)}`);
    }
  }

  /** Called by the loop: wait for the protocol's move for this decision. */
  wait(seat, decision) {
    const token = loopToken.getStore();
    if (token === undefined) throw new Error('LoopDriver.wait is for the game loop itself (started by start)');
    if (token !== this.token) return Promise.reject(new LoopAbandoned());
    this.waitingFor = [seat, decision];
    this.asks += 1;
    // No time limit here: the harness may take its time before the next move.
    const move = new Promise((resolve, reject) => { this.#resume = { resolve, reject }; });
    this.#changed();
    return move;
  }

  /** Called by the loop: note why the engine refused the last move. */
  refuse(message) {
    this.lastMessage = message;
  }

  #raiseFailure() {
    if (this.failure !== null) throw new Error(`the game loop failed: ${this.failure?.stack ?? this.failure}`);
  }

  #changed() {
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) listener();
  }

  #until(ready) {
    return new Promise((resolve, reject) => {
      let timer = null;
      const check = () => {
        if (ready()) {
          if (timer !== null) clearTimeout(timer);
          resolve();
        } else {
          this.#listeners.push(check);
        }
      };
      check();
      if (!ready()) {
        timer = setTimeout(() => {
          this.#listeners = this.#listeners.filter((l) => l !== check);
          reject(new Error(`the game loop did not answer within ${this.timeout} s`));
        }, this.timeout * 1000);
      }
    });
  }
}

// -- the protocol session --------------------------------------------------------------

// The decoded requests whose seq was written as no JSON integer (1.0, 1e2, 1e-400):
// JSON.parse gives numbers only, and 1e-400 is 0 to it; the Python kit answers null.
const seqWrittenAsFraction = new WeakSet();

/** The `seq` a response echoes: the request's integer seq in 0..MAX_SEQ, else null. */
export function requestSeq(request) {
  const seq = isObject(request) ? request.seq : undefined;
  if (seqWrittenAsFraction.has(request)) return null;
  return Number.isInteger(seq) && seq >= 0 && seq <= MAX_SEQ ? seq : null;
}

/** Where the JSON string opened at `start` closes: the next quote that no backslash escapes
 * (one after an even run of them), else the end of the text. */
function stringEnd(text, start) {
  let end = text.indexOf('"', start + 1);
  while (end >= 0) {
    let slashes = 0;
    while (text[end - 1 - slashes] === '\\') slashes += 1;
    if (slashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
  return text.length;
}

/**
 * The text of the number that the top-level key "seq" of the JSON object `text` holds
 * (its last, as JSON.parse keeps the last of repeated keys), else null: a scan of the
 * object's own keys that skips strings and nested values.
 */
function topLevelSeqNumber(text) {
  let depth = 0;
  let found = null;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i];
    if (ch === '"') {
      const end = stringEnd(text, i);
      if (depth === 1) {
        let after = end + 1;
        while (/\s/.test(text[after] ?? '')) after += 1;
        if (text[after] === ':') {
          let key;
          try {
            key = JSON.parse(text.slice(i, end + 1));
          } catch {
            key = null;
          }
          if (key === 'seq') {
            const number = /\s*(-?[0-9][0-9.eE+-]*)/y;
            number.lastIndex = after + 1;
            found = number.exec(text)?.[1] ?? null;
          }
        }
      }
      i = end;
    } else if (ch === '{' || ch === '[') {
      depth += 1;
    } else if (ch === '}' || ch === ']') {
      depth -= 1;
    }
  }
  return found;
}

const SEQ_NUMBER = /\s*:\s*(-?[0-9][0-9.eE+-]*)/y;
const SEQ_OR_ESCAPE = /"seq"|\\u/g;

/**
 * topLevelSeqNumber(text), read at once where the line can say it only one way: with no
 * `\u` escape the letters of a key are written as they read, so a line that holds `"seq"`
 * once holds the top-level key there (the request has one: an escaped quote before `seq`
 * would make a second); else the whole scan.
 */
function seqNumberText(text) {
  // One pass over the line (a start's is some 35 kB) for both: the first of "seq" and \u is
  // "seq", and neither comes after it.
  SEQ_OR_ESCAPE.lastIndex = 0;
  const first = SEQ_OR_ESCAPE.exec(text);
  if (first !== null && first[0] === '"seq"') {
    const after = SEQ_OR_ESCAPE.lastIndex;
    if (SEQ_OR_ESCAPE.exec(text) === null) {
      SEQ_NUMBER.lastIndex = after;
      const found = SEQ_NUMBER.exec(text);
      if (found !== null) return found[1];
    }
  }
  return topLevelSeqNumber(text);
}

export function errorResponse(seq, code, message) {
  return { seq, ok: false, error: { code, message: clipWords(message) } };
}

const KIND_NAMES = { object: 'an object', array: 'an array', string: 'a string', integer: 'an integer' };
const IS_KIND = {
  object: isObject,
  array: Array.isArray,
  string: (v) => typeof v === 'string',
  integer: (v) => Number.isInteger(v),
};

/** `request[name]` when it is of `kind` ('object', 'array', 'string', 'integer'), else bad_request. */
export function fieldOf(request, name, kind) {
  const value = request[name];
  if (!IS_KIND[kind](value)) refuse(ErrorCode.BAD_REQUEST, `'${name}' must be ${KIND_NAMES[kind]}`);
  return value;
}

const isScalar = (v) => v === null || ['string', 'number', 'boolean'].includes(typeof v);
const VERSION = /^[0-9]+\.[0-9]+$/;

/**
 * One engine process: the handshake and at most one table. `backend` is a TrackedEngine
 * (or anything with its Backend methods); `info` is {name, version, language, commands?,
 * actions?, stateFields?, kitKeptFields?, requestsAhead?}. `requestsAhead` (default true): hello
 * says `supports.requests_ahead`, as `serve` and `lineServer` answer each line in order
 * whatever was written after it; false for a session served otherwise.
 */
export class Session {
  constructor(backend, info) {
    this.backend = backend;
    this.info = { language: 'javascript', commands: COMMANDS, actions: ['call', 'throw', 'pick', 'timeout', 'slapdown'], ...info };
    this.started = false;
    this.stopped = false;
  }

  /** The response to one decoded request: a promise of it when a hook answered with one. */
  handle(request) {
    const seq = requestSeq(request);
    const failed = (err) => {
      if (err instanceof Refused) return errorResponse(seq, err.code, err.message);
      return errorResponse(seq, ErrorCode.INTERNAL_ERROR, String(err?.stack ?? err).split('\n').slice(0, 2).join(' '));
    };
    try {
      if (!isObject(request)) refuse(ErrorCode.BAD_REQUEST, 'a request must be a JSON object');
      if (seq === null) refuse(ErrorCode.BAD_REQUEST, `'seq' must be an integer from 0 to ${MAX_SEQ}`);
      const command = request.cmd;
      if (typeof command !== 'string') refuse(ErrorCode.BAD_REQUEST, "'cmd' must be a command name");
      if (!COMMANDS.includes(command)) refuse(ErrorCode.UNKNOWN_COMMAND, `unknown command ${JSON.stringify(command)}`);
      if (!this.info.commands.includes(command)) refuse(ErrorCode.UNSUPPORTED_COMMAND, `this engine does not implement ${command}`);
      const body = this[`cmd_${command}`](request);
      if (isThenable(body)) return body.then((b) => ({ seq, ok: true, ...b }), failed);
      return { seq, ok: true, ...body };
    } catch (err) {
      return failed(err);
    }
  }

  #open() {
    if (!this.started) refuse(ErrorCode.WRONG_PHASE, "no game: send 'start' first");
    return this.backend;
  }

  cmd_hello(request) {
    const wanted = request.protocol;
    if (typeof wanted !== 'string' || !VERSION.test(wanted)) refuse(ErrorCode.BAD_REQUEST, 'hello needs \'protocol\', e.g. "1.0"');
    if (wanted.split('.')[0] !== PROTOCOL_VERSION.split('.')[0]) {
      refuse(ErrorCode.UNSUPPORTED_PROTOCOL, `this engine speaks protocol ${PROTOCOL_VERSION}, not ${wanted}`);
    }
    const { name, version, language, commands, actions, stateFields, kitKeptFields: kept, requestsAhead } = this.info;
    const supports = { commands: [...commands], actions: [...actions] };
    if (stateFields != null) supports.state_fields = [...stateFields];
    if (kept != null) supports.kit_kept_fields = [...kept];
    if (requestsAhead !== false) supports.requests_ahead = true;
    return { engine: { name, version, language }, protocol: PROTOCOL_VERSION, supports };
  }

  cmd_start(request) {
    const profile = fieldOf(request, 'profile', 'object');
    const seats = fieldOf(request, 'seats', 'integer');
    const options = request.options ?? {};
    if (!isObject(options) || !Object.values(options).every(isScalar)) refuse(ErrorCode.BAD_REQUEST, "'options' must be an object of option values");
    return andThen(this.backend.start(profile, options, seats), () => {
      this.started = true;
      return { events: [] };
    });
  }

  cmd_deal(request) {
    const deck = parseCards(fieldOf(request, 'deck', 'array'), 'deck');
    const layout = dealLayout(request);
    return andThen(this.#open().deal(deck, layout), (events) => ({ events }));
  }

  cmd_act(request) {
    // The arguments are checked before asking for a game (step 2 comes before step 3).
    const seat = fieldOf(request, 'seat', 'integer');
    const action = actionOf(fieldOf(request, 'action', 'object'));
    return andThen(this.#open().act(seat, action), (events) => ({ events }));
  }

  cmd_reshuffle(request) {
    const order = parseCards(fieldOf(request, 'order', 'array'), 'order');
    return andThen(this.#open().reshuffle(order), (events) => ({ events }));
  }

  cmd_set_option(request) {
    const name = fieldOf(request, 'name', 'string');
    if (!('value' in request) || !isScalar(request.value)) refuse(ErrorCode.BAD_REQUEST, "set_option needs a 'value': a string, number, boolean or null");
    return andThen(this.#open().setOption(name, request.value), (events) => ({ events }));
  }

  cmd_end_game() {
    return andThen(this.#open().endGame(), (events) => ({ events }));
  }

  cmd_state() {
    return andThen(this.#open().state(), (state) => ({ state }));
  }

  cmd_legal() {
    return andThen(this.#open().legal(), (legal) => ({ legal }));
  }

  cmd_stop() {
    this.stopped = true;
    return {};
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The request on one line (bytes, without its newline), or Refused(bad_request). */
export function decodeRequest(bytes) {
  let text;
  try {
    text = utf8.decode(bytes);
  } catch {
    refuse(ErrorCode.BAD_REQUEST, 'not JSON: the line is not UTF-8');
  }
  let request;
  try {
    request = JSON.parse(text);
  } catch (err) {
    return refuse(ErrorCode.BAD_REQUEST, clipWords(`not JSON: ${err.message}`));
  }
  if (isObject(request) && typeof request.seq === 'number' && /[.eE]/.test(seqNumberText(text) ?? '')) {
    seqWrittenAsFraction.add(request);
  }
  return request;
}

// The bytes that String.prototype.trim() removes from a line read as latin1.
const BLANK_BYTES = new Set([0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0]);
/** Whether a line holds only blanks: `!line.toString('latin1').trim()`, without the text. */
const blank = (line) => line.every((byte) => BLANK_BYTES.has(byte));

/**
 * The responses to a stream of request bytes, line by line, in order: calls `write(line)`
 * with each encoded response (newline included). Returns {push(chunk), end()}; `onStop`
 * runs after the answer to `stop`. A request whose answer is a promise (an async hook) is
 * awaited before the next line is answered; `end()` returns a promise settled once every
 * line read has been answered.
 */
export function lineServer(session, write, onStop = () => {}) {
  let parts = [];
  let size = 0;
  let tooLong = false;
  let stopped = false;
  const waiting = []; // complete lines (or a too-long marker) not answered yet
  let busy = null; // the promise of the answer being awaited
  let drained = null; // resolves end()'s promise once nothing waits
  const answer = (response) => write(`${JSON.stringify(response)}\n`);
  const TOO_LONG = Symbol('too long');
  const respond = (line) => {
    if (line === TOO_LONG) return errorResponse(null, ErrorCode.BAD_REQUEST, `request line longer than ${MAX_LINE_BYTES} bytes`);
    try {
      return session.handle(decodeRequest(line));
    } catch (err) {
      return err instanceof Refused ? errorResponse(null, err.code, err.message)
        : errorResponse(null, ErrorCode.INTERNAL_ERROR, String(err));
    }
  };
  const settled = (response) => {
    answer(response);
    if (session.stopped) {
      stopped = true;
      waiting.length = 0;
      onStop();
    }
  };
  const pump = () => {
    while (busy === null && !stopped && waiting.length) {
      const response = respond(waiting.shift());
      if (isThenable(response)) {
        busy = response.then((r) => { busy = null; settled(r); pump(); });
        return;
      }
      settled(response);
    }
    if (busy === null && drained !== null) drained();
  };
  const finishLine = () => {
    // A line read whole from one chunk is answered before push() returns when nothing waits
    // (pump runs at once): it is read where it lies; a line that waits is copied, as the
    // caller may reuse the chunk.
    const line = parts.length === 1 && busy === null && !waiting.length ? parts[0] : Buffer.concat(parts);
    parts = [];
    size = 0;
    if (tooLong) {
      tooLong = false;
      waiting.push(TOO_LONG);
      return;
    }
    const body = line.at(-1) === 0x0d ? line.subarray(0, -1) : line;
    if (blank(body)) return;
    waiting.push(body);
  };
  return {
    push(chunk) {
      let start = 0;
      while (!stopped && start <= chunk.length) {
        const nl = chunk.indexOf(0x0a, start);
        const end = nl < 0 ? chunk.length : nl;
        if (!tooLong) {
          const piece = chunk.subarray(start, end);
          if (size + piece.length > MAX_LINE_BYTES) {
            tooLong = true; // the rest of the line is read and dropped
            parts = [];
          } else {
            parts.push(piece);
          }
          size += piece.length;
        }
        if (nl < 0) break;
        finishLine();
        pump();
        start = nl + 1;
      }
    },
    end() {
      if (!stopped && (size > 0 || tooLong)) finishLine();
      const done = new Promise((resolve) => { drained = resolve; });
      pump();
      return done;
    },
  };
}

/**
 * Serve `session` on standard input and output until `stop` or end of input, then exit 0.
 * Standard output carries responses only: with `quietPrints` (the default) console.log and
 * friends write to standard error, so an engine that logs can be served as it is. The
 * answers to lines that arrived together (a harness pipelines its requests) are written
 * together.
 */
export function serve(session, { quietPrints = true } = {}) {
  if (quietPrints) {
    for (const name of ['log', 'info', 'debug', 'dir', 'table']) console[name] = (...args) => console.error(...args);
  }
  const send = (text) => {
    const data = Buffer.from(text);
    let off = 0;
    while (off < data.length) {
      try {
        off += writeSync(1, data, off);
      } catch (err) {
        if (err.code === 'EAGAIN') continue;
        if (err.code === 'EPIPE') process.exit(0);
        throw err;
      }
    }
  };
  // One write a chunk read, not one a response: each write is a system call that wakes the
  // harness (a quarter as many over the corpus when the harness sends its requests ahead).
  let pending = [];
  let pushing = false;
  const flush = () => {
    if (pending.length) {
      const text = pending.join('');
      pending = [];
      send(text);
    }
  };
  const write = (line) => {
    pending.push(line);
    if (!pushing) flush(); // an async hook's answer, settled after its chunk was answered
  };
  const server = lineServer(session, write, () => { flush(); process.exit(0); });
  process.stdin.on('data', (chunk) => {
    pushing = true;
    try {
      server.push(chunk);
    } finally {
      pushing = false;
    }
    flush();
  });
  process.stdin.on('end', () => { server.end().then(() => process.exit(0)); });
}

/** Serve `session` on standard input and output (the Python kit's `run`). */
export function run(session) {
  serve(session);
}

/** Serve a TrackedEngine on standard input and output: a binding's whole main. */
export function main(engine) {
  run(new Session(engine, engine.constructor.info()));
}
