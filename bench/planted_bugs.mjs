#!/usr/bin/env node
// examples/javascript-object with one bug planted, served over the protocol:
//   node bench/planted_bugs.mjs SHAPE
// Each plant overrides one method of yaniv.mjs's Game (the library the example binds), then
// the unchanged binding (bind.mjs) is loaded and serves it. The shapes and their meaning are
// those of bench/planted_bugs.py, which runs this file.
import { Card, Game } from '../examples/javascript-object/yaniv.mjs';

const TARGET = '12345678910111213';
const pairs = (cards) => cards.map((c) => [c.rank, c.isJoker ? 'x' : c.suit[0]]);
const naturals = (cs) => cs.every(([r]) => r !== 0);
const consecutive = (ranks) => {
  const o = [...ranks].sort((a, b) => a - b);
  return o.every((r, i) => r === o[0] + i);
};
const oneSuit = (cs) => new Set(cs.map(([, s]) => s)).size === 1;

// The runs each shape accepts on top of the library's own (cards as [rank, suit] pairs).
const RUNS = {
  run_ranks_substring: (cs) => cs.length >= 3 && naturals(cs)
    && TARGET.includes(cs.map(([r]) => r).sort((a, b) => a - b).join('')),
  run_lowest_suit_unchecked: (cs) => {
    const o = [...cs].sort((a, b) => a[0] - b[0]);
    return cs.length >= 3 && naturals(cs) && oneSuit(o.slice(1)) && consecutive(cs.map(([r]) => r));
  },
  run_with_gaps: (cs) => cs.length >= 3 && naturals(cs) && oneSuit(cs)
    && new Set(cs.map(([r]) => r)).size === cs.length,
  ace_high_runs: (cs) => cs.length >= 3 && naturals(cs) && oneSuit(cs)
    && consecutive(cs.map(([r]) => (r === 1 ? 14 : r))),
  two_card_runs: (cs) => cs.length === 2 && naturals(cs) && oneSuit(cs) && Math.abs(cs[0][0] - cs[1][0]) === 1,
  mixed_suit_runs: (cs) => cs.length >= 3 && naturals(cs) && consecutive(cs.map(([r]) => r)),
};

// Who wins a call, by shape: the seat, or null when the call stands.
const WINNERS = {
  beaten_call_to_last_lower_seat: (hv, others, caller) => {
    const lower = others.filter((i) => hv[i] <= hv[caller]);
    return lower.length ? lower[lower.length - 1] : null;
  },
  tie_broken_by_seat_number: (hv, others, caller) => {
    const lowest = Math.min(...others.map((i) => hv[i]));
    return lowest <= hv[caller] ? Math.min(...others.filter((i) => hv[i] === lowest)) : null;
  },
  caller_wins_a_tie: (hv, others, caller) => {
    const lowest = Math.min(...others.map((i) => hv[i]));
    return lowest < hv[caller] ? others.find((i) => hv[i] === lowest) : null;
  },
};

const proto = Game.prototype;

function plantRun(accepts) {
  const { canPlay, play } = proto;
  const extra = function (cards) {
    return this.stage === 'discard' && cards.every((c) => c && this.currentPlayer.hand.includes(c))
      && new Set(cards).size === cards.length && accepts(pairs(cards));
  };
  proto.canPlay = function (cards) { return canPlay.call(this, cards) || extra.call(this, cards); };
  proto.play = function (cards) {
    if (canPlay.call(this, cards) || !extra.call(this, cards)) return play.call(this, cards);
    const p = this.currentPlayer;
    p.hand = p.hand.filter((c) => !cards.includes(c));
    this.discards.push([...cards]);
    this.stage = 'draw';
    return 'run';
  };
}

// The library's own rule: the first lowest hand after the caller, a tie beating it.
const firstLowest = (hv, others, caller) => {
  const lowest = Math.min(...others.map((i) => hv[i]));
  return lowest <= hv[caller] ? others.find((i) => hv[i] === lowest) : null;
};

// Game.yaniv with its choice of winner replaced by `choose` (and, unless `othersPay`, the
// others' hands not scored after a won call).
function plantWinner(choose, othersPay = true) {
  proto.yaniv = function () {
    if (!this.canYaniv()) throw new Error('cannot call Yaniv');
    const caller = this.current;
    const hv = this.players.map((p) => p.handValue);
    const others = [];
    for (let i = this.nextIndex(caller); i !== caller; i = this.nextIndex(i)) others.push(i);
    const found = choose(hv, others, caller);
    const assaf = found !== null;
    const winner = assaf ? found : caller;
    const points = this.players.map(() => 0);
    for (const i of others) if (i !== winner && (assaf || othersPay)) points[i] = hv[i];
    if (assaf) points[caller] = hv[caller] + 30;
    const eliminated = [];
    this.players.forEach((p, i) => {
      if (p.out || !points[i]) return;
      p.score += points[i];
      const cut = this.options.scoreCuts.find((c) => c.at === p.score);
      if (cut) p.score = cut.to;
      if (p.score > this.options.outAbove) { p.out = true; eliminated.push(i); }
    });
    const result = { caller, winner, assaf, points, scores: this.players.map((p) => p.score), eliminated };
    this.history.push(result);
    this.starting = this.players[winner].out ? this.nextIndex(winner) : winner;
    this.stage = this.activePlayers.length <= 1 ? 'gameOver' : 'roundOver';
    return result;
  };
}

const OTHERS = {
  thrown_cards_laid_in_hand_order() {
    const { play } = proto;
    proto.play = function (cards) {
      const hand = this.currentPlayer.hand;
      return play.call(this, [...cards].sort((a, b) => hand.indexOf(a) - hand.indexOf(b)));
    };
  },
  call_limit_boundary() {
    proto.canYaniv = function () {
      return this.stage === 'discard' && this.currentPlayer.handValue <= this.options.callLimit;
    };
  },
  beaten_penalty_off_by_5() {
    const { yaniv } = proto;
    proto.yaniv = function () {
      const r = yaniv.call(this);
      if (!r.assaf) return r;
      const p = this.players[r.caller];
      r.points[r.caller] += 5;
      p.score += 5;
      r.scores[r.caller] = p.score;
      if (!p.out && p.score > this.options.outAbove) { p.out = true; r.eliminated.push(r.caller); }
      this.stage = this.activePlayers.length <= 1 ? 'gameOver' : 'roundOver';
      return r;
    };
  },
  out_on_reaching_the_threshold() {
    const { yaniv } = proto;
    proto.yaniv = function () {
      const saved = this.options.outAbove;
      this.options.outAbove = saved - 1;
      try { return yaniv.call(this); } finally { this.options.outAbove = saved; }
    };
  },
  won_call_others_pay_nothing() { plantWinner(firstLowest, false); },
  joker_worth_one() {
    const points = Object.getOwnPropertyDescriptor(Card.prototype, 'points').get;
    Object.defineProperty(Card.prototype, 'points', {
      get() { return this.isJoker ? 1 : points.call(this); },
    });
  },
  pick_rule_misread() {
    // First or last placed read as the last only (a wider rule would be masked: the kit
    // refuses a card outside the profile's pick rule before the library is asked).
    proto.canTake = function (card) {
      const pile = this.previousDiscard;
      return this.stage === 'draw' && pile[pile.length - 1] === card;
    };
  },
};

const shape = process.argv[2];
if (RUNS[shape]) plantRun(RUNS[shape]);
else if (WINNERS[shape]) plantWinner(WINNERS[shape]);
else if (OTHERS[shape]) OTHERS[shape]();
else {
  process.stderr.write(`usage: planted_bugs.mjs SHAPE; shapes: ${[...Object.keys(RUNS), ...Object.keys(WINNERS), ...Object.keys(OTHERS)].join(', ')}\n`);
  process.exit(2);
}
await import('../examples/javascript-object/bind.mjs');
