// yaniv.mjs: a small Yaniv game library with an object API, the way browser and Node
// Yaniv games are commonly written: a Game holds the players, shuffles its own deck, and
// offers play(), draw(), take() and yaniv() with getters for the UI. It knows nothing of
// any test suite.
//
// House rules: two jokers (0 points) that may stand in runs only; sets of 2-4, runs of 3+
// in one suit with the ace low; after discarding, take the top of the deck or the first or
// last card of the previous discard; Yaniv when the hand is below the call limit (8);
// Assaf when another hand is as low or lower: the caller scores the hand + 30, everyone
// but the round's winner scores their hand; exactly 200 drops to 150; above 200 is out.
// An empty deck is rebuilt from the discard pile when someone wants to draw, keeping the
// last discard and the one just made.

export const SUITS = ['clubs', 'diamonds', 'hearts', 'spades'];

export class Card {
  constructor(rank, suit) {
    this.rank = rank; // 1 (ace) .. 13 (king); 0 for a joker
    this.suit = suit; // one of SUITS, or null for a joker
  }

  get isJoker() { return this.rank === 0; }

  get points() { return this.isJoker ? 0 : Math.min(this.rank, 10); }

  toString() {
    return this.isJoker ? 'Joker' : `${'A23456789TJQK'[this.rank - 1]}${this.suit[0]}`;
  }
}

export function newDeck() {
  const cards = [];
  for (const suit of SUITS) for (let rank = 1; rank <= 13; rank += 1) cards.push(new Card(rank, suit));
  cards.push(new Card(0, null), new Card(0, null));
  return cards;
}

export function shuffle(cards, random = Math.random) {
  for (let i = cards.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [cards[i], cards[j]] = [cards[j], cards[i]];
  }
  return cards;
}

/** 'single', 'set' or 'run' for a legal discard, else null. */
export function discardKind(cards) {
  if (cards.length === 1) return 'single';
  if (cards.length < 2) return null;
  const naturals = cards.filter((c) => !c.isJoker);
  if (naturals.length === 0 || (naturals.length === cards.length && naturals.every((c) => c.rank === naturals[0].rank))) {
    return cards.length <= 4 ? 'set' : null;
  }
  if (cards.length < 3 || naturals.some((c) => c.suit !== naturals[0].suit)) return null;
  const ranks = naturals.map((c) => c.rank).sort((a, b) => a - b);
  if (ranks.some((r, i) => i > 0 && r === ranks[i - 1])) return null;
  const span = ranks[ranks.length - 1] - ranks[0] + 1;
  return span <= cards.length && cards.length <= 13 ? 'run' : null;
}

export class Player {
  constructor(name) {
    this.name = name;
    this.hand = [];
    this.score = 0;
    this.out = false;
  }

  get handValue() { return this.hand.reduce((sum, c) => sum + c.points, 0); }
}

export class Game {
  constructor(names, options = {}) {
    this.players = names.map((n) => new Player(n));
    this.options = { callLimit: 8, handSize: 5, outAbove: 200, scoreCuts: [{ at: 200, to: 150 }], random: Math.random, ...options };
    this.deck = []; // the top card is the last
    this.discards = []; // discards as placed, the newest last; each an array of cards
    this.current = 0;
    this.starting = 0;
    this.stage = 'idle'; // 'discard', 'draw', 'roundOver', 'gameOver'
    this.round = 0;
    this.history = [];
  }

  get currentPlayer() { return this.players[this.current]; }

  get lastDiscard() { return this.discards[this.discards.length - 1] ?? []; }

  get previousDiscard() { return this.stage === 'draw' ? this.discards[this.discards.length - 2] ?? [] : this.lastDiscard; }

  get activePlayers() { return this.players.filter((p) => !p.out); }

  nextIndex(i) {
    for (let step = 1; step <= this.players.length; step += 1) {
      const j = (i + step) % this.players.length;
      if (!this.players[j].out) return j;
    }
    return i;
  }

  startRound() {
    this.deck = shuffle(newDeck(), this.options.random);
    for (const p of this.players) p.hand = [];
    for (let n = 0; n < this.options.handSize; n += 1) {
      let i = this.starting;
      do {
        if (!this.players[i].out) this.players[i].hand.push(this.deck.pop());
        i = (i + 1) % this.players.length;
      } while (i !== this.starting);
    }
    this.discards = [[this.deck.pop()]];
    this.current = this.starting;
    this.round += 1;
    this.stage = 'discard';
  }

  canYaniv() { return this.stage === 'discard' && this.currentPlayer.handValue < this.options.callLimit; }

  canPlay(cards) {
    return this.stage === 'discard' && cards.every((c) => this.currentPlayer.hand.includes(c))
      && new Set(cards).size === cards.length && discardKind(cards) !== null;
  }

  play(cards) {
    if (!this.canPlay(cards)) throw new Error('illegal discard');
    const p = this.currentPlayer;
    p.hand = p.hand.filter((c) => !cards.includes(c));
    this.discards.push([...cards]);
    this.stage = 'draw';
    return discardKind(cards);
  }

  canTake(card) {
    const pile = this.previousDiscard;
    return this.stage === 'draw' && (pile[0] === card || pile[pile.length - 1] === card);
  }

  take(card) {
    if (!this.canTake(card)) throw new Error('cannot take that card');
    const pile = this.discards[this.discards.length - 2];
    pile.splice(pile.indexOf(card), 1);
    this.#endTurn(card);
  }

  draw() {
    if (this.stage !== 'draw') throw new Error('not drawing now');
    if (this.deck.length === 0) this.rebuildDeck();
    this.#endTurn(this.deck.pop());
  }

  /** The deck ran out: everything but the last two discards is shuffled into a new deck. */
  rebuildDeck(order = null) {
    const kept = this.discards.slice(-2);
    const used = this.discards.slice(0, -2).flat();
    this.deck = order ?? shuffle(used, this.options.random);
    this.discards = kept;
  }

  #endTurn(card) {
    this.currentPlayer.hand.push(card);
    this.current = this.nextIndex(this.current);
    this.stage = 'discard';
  }

  yaniv() {
    if (!this.canYaniv()) throw new Error('cannot call Yaniv');
    const caller = this.current;
    const value = this.currentPlayer.handValue;
    const others = [];
    for (let i = this.nextIndex(caller); i !== caller; i = this.nextIndex(i)) others.push(i);
    const lowest = Math.min(...others.map((i) => this.players[i].handValue));
    const assaf = lowest <= value;
    const winner = assaf ? others.find((i) => this.players[i].handValue === lowest) : caller;
    const points = this.players.map(() => 0);
    for (const i of others) if (i !== winner) points[i] = this.players[i].handValue;
    if (assaf) points[caller] = value + 30;
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
  }
}
