// A test binding: an "engine" that plays the profile's own throw, call, showdown and scoring
// rules (as the reference engine reads them) with the kit's helpers, so that the kit's
// bookkeeping can be tested on exact games, and run through the harness:
//   jhyap run --engine "node kits/javascript/test/profile-engine.mjs --serve" --profile FILE
// (`--serve --async`: every hook answers with a promise, settled on a later turn of the
// event loop).
import { readFileSync } from 'node:fs';
import {
  ANY, KIT_RULES, TrackedEngine, classifyThrow, main, nextActive, profileHandValue,
  jokerAloneRefused, outOfOrder, singleRefused, turnOrderFrom,
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

  /** The call limit at this table (call.limit_by_seats steps it by seat count). */
  #callLimit() {
    let { limit } = this.rules.call;
    for (const step of this.rules.call.limit_by_seats ?? []) if (this.seats >= step.from_seats) ({ limit } = step);
    return limit;
  }

  refusal(seat, action) {
    const r = this.rules;
    if (action.type === 'call') {
      const value = this.#value(this.table.hands[seat]);
      if (r.call.first_round === 'after_every_player_had_a_turn' && this.table.turnsTaken < this.table.active.length) {
        return { code: 'call_too_early', message: 'not yet' };
      }
      // Turns go round the players still in, so the seat to act has had one of its own per lap.
      if (Math.floor(this.table.turnsTaken / this.table.active.length) < (r.call.min_own_turns ?? 0)) {
        return { code: 'call_too_early', message: 'too few turns of its own' };
      }
      const limit = this.#callLimit();
      const within = r.call.inclusive ? value <= limit : value < limit;
      return within ? null : 'call_over_limit';
    }
    if (action.type === 'throw') {
      const rules = this.kitRules;
      if (!classifyThrow(action.cards, rules)) return 'illegal_throw';
      if (outOfOrder(action.cards, rules)) return 'illegal_throw';
      if (jokerAloneRefused(action.cards, this.table.hands[seat], rules)) return 'illegal_throw';
      return singleRefused(action.cards, this.table.hands[seat], rules) ? 'illegal_throw' : null;
    }
    return null;
  }

  onCall(seat) {
    this.calls.push(seat);
  }

  onThrow(seat, cards) {
    return classifyThrow(cards, this.kitRules);
  }

  handValue(cards) {
    return this.#value(cards);
  }

  #value(cards) {
    return profileHandValue(this.kitRules, cards);
  }

  /** The showdown after a call (`caller`), or the deck run out (`caller` null), then the
   * score cuts and who goes out: the reference engine's scoring.py and game_end.py. */
  scoreRound(caller, values) {
    const r = this.rules;
    const kind = r.scoring.kind;
    const deltas = Array(this.seats).fill(0);
    const inPlay = values.map((v, s) => s).filter((s) => values[s] !== null);
    let winner = null;
    if (caller === null) {
      const scored = r.deck_runs_out === 'round_ends_hands_score' && kind !== 'none';
      for (const s of inPlay) deltas[s] = scored ? values[s] : 0;
    } else {
      const order = turnOrderFrom(this.table, nextActive(this.table, caller));
      const others = order.filter((s) => s !== caller);
      const lowest = Math.min(...others.map((s) => values[s]));
      const beaten = r.showdown.tie === 'beats_caller' ? lowest <= values[caller] : lowest < values[caller];
      const tied = others.filter((s) => values[s] === lowest);
      if (r.showdown.winner_among_lowest === 'lowest_seat') tied.sort((a, b) => a - b);
      winner = beaten ? tied[0] : caller;
      if (kind === 'transfer') {
        if (beaten) {
          let amount = inPlay.reduce((sum, s) => sum + values[s], 0);
          if (r.scoring.beaten_call === 'hands_except_winner') amount -= values[winner];
          deltas[caller] = -amount;
          deltas[winner] = amount;
        } else {
          for (const s of others) deltas[s] = -values[s];
          deltas[caller] = others.reduce((sum, s) => sum + values[s], 0);
        }
      } else if (kind === 'penalty') {
        if (beaten) {
          // The caller's hand plus the penalty, times the factor, or the penalty alone.
          const penalty = r.scoring.beaten_penalty ?? 0;
          if (r.scoring.beaten_call === 'caller_hand_times') deltas[caller] = values[caller] * (r.scoring.beaten_factor ?? 2);
          else if (r.scoring.beaten_call === 'penalty_only') deltas[caller] = penalty;
          else deltas[caller] = values[caller] + penalty;
          const others_score = r.scoring.beaten_others ?? 'score_nothing';
          if (others_score === 'score_own_hands_but_beaters') {
            // Every hand that beats the call (as the tie rule says) scores nothing.
            const beats = (v) => (r.showdown.tie === 'beats_caller' ? v <= values[caller] : v < values[caller]);
            for (const s of others) if (!beats(values[s])) deltas[s] = values[s];
          } else if (others_score === 'score_own_hands_but_lowest') {
            // Every hand as low as the winner's scores nothing: several winners of one hand.
            for (const s of others) if (values[s] !== lowest) deltas[s] = values[s];
          } else if (others_score !== 'score_nothing') {
            const winnerToo = others_score === 'all_but_caller_score_own_hands';
            for (const s of others) if (s !== winner || winnerToo) deltas[s] = values[s];
          }
        } else {
          for (const s of others) deltas[s] = values[s];
        }
      }
    }
    const multiplier = r.scoring.points_multiplier ?? 1;
    for (let s = 0; s < this.seats; s += 1) {
      deltas[s] *= multiplier;
      this.totals[s] += deltas[s];
      if (deltas[s]) this.totals[s] = this.#cut(this.totals[s], this.#handAdded(s, values, caller, winner));
    }
    return { winner, deltas, scores: [...this.totals], eliminated: this.#out(inPlay) };
  }

  /** Whether the seat's own hand added points: worth more than 0 and counted (every seat
   * that scores, but a beaten caller under penalty_only). */
  #handAdded(seat, values, caller, winner) {
    const beatenCaller = caller !== null && winner !== caller && seat === caller;
    if (beatenCaller && this.rules.scoring.beaten_call === 'penalty_only') return false;
    return (values[seat] ?? 0) > 0;
  }

  /** A total after the score cuts: an exact match, else a drop at a multiple, else halving;
   * under multiples_for own_hand the multiples only where the seat's own hand added points. */
  #cut(total, handAdded) {
    const s = this.rules.scoring;
    for (const cut of s.cuts ?? []) if (total === cut.at) return cut.to;
    if (s.multiples_for === 'own_hand' && !handAdded) return total;
    if (s.drop_at_multiples_of && total > 0 && total % s.drop_at_multiples_of === 0) return total - s.drop_at_multiples_of;
    if (s.halve_at_multiples_of && total > 0 && total % s.halve_at_multiples_of === 0) return Math.floor(total / 2);
    return total;
  }

  /** The seats in play that go out (elimination): above the threshold, or at it where
   * reaching it is out; when all would, the lowest stay. */
  #out(inPlay) {
    const g = this.rules.game_end;
    if (g.kind !== 'elimination' || g.out_above == null) return [];
    const over = (s) => (g.reaching_is_out ? this.totals[s] >= g.out_above : this.totals[s] > g.out_above);
    let out = inPlay.filter(over);
    if (out.length && out.length === inPlay.length) {
      const lowest = Math.min(...inPlay.map((s) => this.totals[s]));
      out = out.filter((s) => this.totals[s] !== lowest);
    }
    return out;
  }
}

/** The same engine with every hook answering by a promise settled on a later turn. */
export class AsyncProfileEngine extends ProfileEngine {
  static NAME = 'profile-engine-async';
}
for (const hook of ['beginGame', 'beginHand', 'refusal', 'onCall', 'onThrow', 'onPick', 'onReshuffle',
  'handValue', 'scoreRound', 'settlement', 'pickablePositions', 'legalThrows']) {
  AsyncProfileEngine.prototype[hook] = function later(...args) {
    const answer = ProfileEngine.prototype[hook].apply(this, args);
    return new Promise((resolve) => { setImmediate(() => resolve(answer)); });
  };
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

if (process.argv[2] === '--serve') main(process.argv.includes('--async') ? new AsyncProfileEngine() : new ProfileEngine());
