#!/usr/bin/env node
// The binding of yaniv.mjs (an object-API Yaniv library) to the jhyap protocol, through
// the JavaScript kit: the kit speaks the protocol and keeps the table's record; this file
// only maps cards and forwards moves to the library's own methods.
import { ANY, KIT_RULES, TrackedEngine, main } from '../../kits/javascript/jhyap-kit.mjs';
import { Card, Game, SUITS } from './yaniv.mjs';

const RANKS = 'A23456789TJQK';
const nameOf = (c) => (c.isJoker ? 'X' : RANKS[c.rank - 1] + c.suit[0]);
const cardOf = (n) => (n === 'X' ? new Card(0, null) : new Card(RANKS.indexOf(n[0]) + 1, SUITS.find((s) => s[0] === n[1])));
const VALUES = { A: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7, 8: 8, 9: 9, T: 10, J: 10, Q: 10, K: 10, X: 0 };

/** The library's card objects named `names`, each object used once (two jokers are two). */
function find(cards, names) {
  const pool = [...cards];
  return names.map((n) => {
    const i = pool.findIndex((c) => nameOf(c) === n);
    return i < 0 ? null : pool.splice(i, 1)[0];
  });
}

/** The card of the previous discard named `name` that the library lets be taken, if any
 * (of two jokers on offer only one may be the first or last card placed). */
function offered(game, name) {
  const named = game.previousDiscard.filter((c) => nameOf(c) === name);
  return named.find((c) => game.canTake(c)) ?? named[0] ?? null;
}

class YanivBinding extends TrackedEngine {
  static NAME = 'yaniv-mjs';

  static VERSION = '1.0.0';

  // What yaniv.mjs implements, beyond what the kit plays itself.
  static RULES = {
    ...KIT_RULES,
    'deck.cards': [52],
    'deck.jokers': [2],
    'deck.jokers_wild': ['runs'],
    'deck.packs_by_seats': [[]],
    card_values: (v) => Object.entries(VALUES).every(([k, n]) => v[k] === n) && Object.keys(v).length === 14,
    'throws.set.min': [2],
    'throws.set.max': [4],
    'throws.set.jokers_alone': [true], // two jokers make a pair here
    'throws.run': [{ min: 3, ace: 'low' }],
    'throws.order_matters': [false],
    'throws.laid': ['as_placed'], // its discard piles keep the order placed
    'throws.slapdown': ['none'], // its game has no slapdown
    'pick.from_offer': ['first_or_last_placed'],
    'pick.only_after_multi_throw': [false],
    'call.limit': ANY,
    'call.inclusive': [false],
    'call.timing': ['start_of_turn'],
    'call.first_round': ['allowed'],
    showdown: [{ tie: 'beats_caller', winner_among_lowest: 'first_after_caller' }],
    'scoring.kind': ['penalty'],
    'scoring.won_call': ['each_other_hand'],
    'scoring.beaten_call': ['caller_hand_plus_penalty'],
    'scoring.beaten_penalty': [30],
    'scoring.beaten_others': ['score_own_hands'],
    'scoring.cuts': ANY,
    'game_end.kind': ['elimination'],
    'game_end.out_above': ANY,
    'game_end.reaching_is_out': [false],
    next_starter: ['round_winner'],
    'deal.dealer': ['none'],
    'reshuffle.moment': ['when_draw_finds_deck_empty'],
    'reshuffle.kept_aside': ['offer_and_throw'],
    deck_runs_out: ['reshuffle'],
    money: [null],
    turn_timer: [null],
  };

  beginGame(r, seats) {
    const names = Array.from({ length: seats }, (_, s) => `seat ${s}`);
    this.game = new Game(names, {
      callLimit: r.call.limit, handSize: r.hand_size, outAbove: r.game_end.out_above, scoreCuts: r.scoring.cuts,
    });
  }

  beginHand(deal) {
    const g = this.game;
    g.starting = deal.starter;
    g.startRound(); // shuffles and deals its own deck; the kit's layout replaces it
    g.players.forEach((p, s) => { p.hand = deal.hands[s].map(cardOf); });
    g.deck = deal.stock.map(cardOf).reverse();
    g.discards = [[cardOf(deal.turnedUp)]];
  }

  refusal(seat, action) {
    const g = this.game;
    if (action.type === 'call') return g.canYaniv() ? null : 'call_over_limit';
    if (action.type === 'throw') return g.canPlay(find(g.currentPlayer.hand, action.cards)) ? null : 'illegal_throw';
    if (action.source === 'offer') return g.canTake(offered(g, action.card)) ? null : 'pick_not_allowed';
    return null;
  }

  onThrow(seat, cards) {
    return this.game.play(find(this.game.currentPlayer.hand, cards));
  }

  onPick(seat, card, source) {
    if (source === 'deck') this.game.draw();
    else this.game.take(offered(this.game, card));
  }

  onReshuffle(stock) {
    this.game.rebuildDeck(stock.map(cardOf).reverse());
  }

  handValue(cards) {
    return cards.reduce((sum, n) => sum + cardOf(n).points, 0);
  }

  scoreRound() {
    const r = this.game.yaniv();
    return { winner: r.winner, deltas: r.points, scores: r.scores, eliminated: r.eliminated };
  }
}

main(new YanivBinding());
