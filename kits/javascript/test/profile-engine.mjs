// A test binding: an "engine" that plays the profile's own throw, call and scoring rules
// with the kit's helpers, so that the kit's bookkeeping can be tested on exact games.
import { readFileSync } from 'node:fs';
import {
  ANY, KIT_RULES, TrackedEngine, classifyThrow, profileCardValue, readRules,
} from '../jhyap-kit.mjs';

export const fixture = (name) => JSON.parse(readFileSync(new URL(`fixtures/${name}.json`, import.meta.url), 'utf8'));

export class ProfileEngine extends TrackedEngine {
  static NAME = 'profile-engine';

  static VERSION = '0.0.1';

  static RULES = {
    ...KIT_RULES,
    card_values: ANY,
    'deck.jokers_wild': ANY,
    throws: ANY,
    call: ANY,
    showdown: ANY,
    scoring: ANY,
    game_end: ANY,
    money: ANY,
  };

  beginGame(rules, seats) {
    this.calls = [];
    this.hands = [];
    this.seats = seats;
    this.totals = Array(seats).fill(0);
  }

  beginHand(deal) {
    this.hands.push(deal);
  }

  #rules() {
    return readRules(this.rules);
  }

  refusal(seat, action) {
    const r = this.rules;
    if (action.type === 'call') {
      const value = this.handValue(this.table.hands[seat]);
      if (r.call.first_round === 'after_every_player_had_a_turn' && this.table.turnsTaken < this.table.active.length) {
        return { code: 'call_too_early', message: 'not yet' };
      }
      const within = r.call.inclusive ? value <= r.call.limit : value < r.call.limit;
      return within ? null : 'call_over_limit';
    }
    if (action.type === 'throw') return classifyThrow(action.cards, this.#rules()) ? null : 'illegal_throw';
    return null;
  }

  onCall(seat) {
    this.calls.push(seat);
  }

  onThrow(seat, cards) {
    return classifyThrow(cards, this.#rules());
  }

  handValue(cards) {
    const rules = this.#rules();
    return cards.reduce((sum, c) => sum + profileCardValue(rules, c), 0);
  }

  // Penalty scoring only: the others score their hands on a won call; a beaten caller
  // scores the hand plus the penalty and the lowest other hand wins.
  scoreRound(caller, values) {
    const deltas = Array(this.seats).fill(0);
    const others = values.map((v, s) => [v, s]).filter(([v, s]) => v !== null && s !== caller);
    const lowest = Math.min(...others.map(([v]) => v));
    const beaten = lowest <= values[caller];
    const winner = beaten ? others.find(([v]) => v === lowest)[1] : caller;
    for (const [v, s] of others) if (s !== winner) deltas[s] = v;
    if (beaten) deltas[caller] = values[caller] + this.rules.scoring.beaten_penalty;
    this.totals = this.totals.map((t, s) => t + deltas[s]);
    const out = this.totals.map((t, s) => [t, s]).filter(([t, s]) => t > (this.rules.game_end.out_above ?? Infinity) && values[s] !== null).map(([, s]) => s);
    return { winner, deltas, scores: [...this.totals], eliminated: out };
  }
}

/** A session over a fresh ProfileEngine, and `send(request)` answering one request. */
export async function session(Engine = ProfileEngine) {
  const { Session } = await import('../jhyap-kit.mjs');
  const s = new Session(new Engine(), Engine.info());
  let seq = 0;
  const send = (request) => s.handle({ seq: seq++, ...request });
  return { session: s, send };
}

/** A 54-card deck (one pack, two jokers) that deals `hands` to seats 0.. in turn order,
 * turns up `turnedUp`, and then holds `stock` (top first) and every other card. */
export function deckFor(hands, turnedUp, stock = [], jokers = 2) {
  const ranks = 'A23456789TJQK';
  const all = [];
  for (const r of ranks) for (const s of 'cdhs') all.push(r + s);
  for (let j = 0; j < jokers; j += 1) all.push('X');
  const dealt = [];
  for (let i = 0; i < hands[0].length; i += 1) for (const h of hands) dealt.push(h[i]);
  const used = [...dealt, turnedUp, ...stock];
  const rest = [...all];
  for (const c of used) rest.splice(rest.indexOf(c), 1);
  return [...used, ...rest];
}
