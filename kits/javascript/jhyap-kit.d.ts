// Types of jhyap-kit.mjs (hand-written; the module has no dependencies and no build step).
// Card names are protocol names: rank A 2-9 T J Q K then suit c d h s ("Td"), "X" a joker.

export declare const PROTOCOL_VERSION: '1.2';
/** The kit's version: the protocol version it speaks, then its own revision. */
export declare const KIT_VERSION: string;
export declare const MAX_LINE_BYTES: 1048576;
export declare const MAX_SEQ: 9007199254740991;
export type Command =
  | 'hello' | 'start' | 'deal' | 'act' | 'reshuffle' | 'set_option' | 'end_game' | 'state' | 'legal' | 'stop';
export declare const COMMANDS: readonly Command[];

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };
export type Scalar = null | boolean | number | string;
export type Card = string;
export type Seat = number;

export declare const ErrorCode: {
  readonly BAD_REQUEST: 'bad_request';
  readonly UNKNOWN_COMMAND: 'unknown_command';
  readonly UNSUPPORTED_PROTOCOL: 'unsupported_protocol';
  readonly UNSUPPORTED_PROFILE: 'unsupported_profile';
  readonly UNSUPPORTED_OPTION: 'unsupported_option';
  readonly UNSUPPORTED_COMMAND: 'unsupported_command';
  readonly INVALID_PROFILE: 'invalid_profile';
  readonly INVALID_SEATS: 'invalid_seats';
  readonly UNKNOWN_OPTION: 'unknown_option';
  readonly INVALID_OPTION_VALUE: 'invalid_option_value';
  readonly OPTION_LOCKED: 'option_locked';
  readonly WRONG_PHASE: 'wrong_phase';
  readonly NOT_YOUR_TURN: 'not_your_turn';
  readonly INVALID_SEAT: 'invalid_seat';
  readonly INVALID_CARD: 'invalid_card';
  readonly INVALID_DECK: 'invalid_deck';
  readonly INVALID_RESHUFFLE: 'invalid_reshuffle';
  readonly CARD_NOT_IN_HAND: 'card_not_in_hand';
  readonly ILLEGAL_THROW: 'illegal_throw';
  readonly CALL_OVER_LIMIT: 'call_over_limit';
  readonly CALL_TOO_EARLY: 'call_too_early';
  readonly CARD_NOT_ON_OFFER: 'card_not_on_offer';
  readonly PICK_NOT_ALLOWED: 'pick_not_allowed';
  readonly SLAPDOWN_NOT_ALLOWED: 'slapdown_not_allowed';
  readonly TIMER_OFF: 'timer_off';
  readonly GAME_NOT_ENDABLE: 'game_not_endable';
  readonly INTERNAL_ERROR: 'internal_error';
};
export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

/** A refused request: thrown by the kit or a hook before anything changed. */
export declare class Refused extends Error {
  constructor(code: ErrorCodeValue, message: string);
  readonly code: ErrorCodeValue;
}

/** Why the engine refuses an action. */
export interface Refusal {
  code: ErrorCodeValue;
  message: string;
}

// -- cards ---------------------------------------------------------------------------------

export declare const RANKS: 'A23456789TJQK';
export declare const SUITS: 'cdhs';
export declare const JOKER: 'X';
export declare function isCard(name: unknown): name is Card;
/** 1 (ace) to 13 (king); 0 for a joker. */
export declare function rankOf(card: Card): number;
/** 'c', 'd', 'h' or 's'; 'x' for a joker. */
export declare function suitOf(card: Card): string;
/** Canonical order: by rank, ace first, then c d h s; jokers last. */
export declare function canonical(cards: Iterable<Card>): Card[];
/** Every card of a table: packs of 52 less the ranks left out (rank letters), with their jokers. */
export declare function fullDeck(packs?: number, jokersPerPack?: number, ranksLeftOut?: readonly string[]): Card[];
export declare function sameCards(a: readonly Card[], b: readonly Card[]): boolean;
export declare function withoutCards(from: readonly Card[], cards: readonly Card[]): Card[];
export declare function clipWords(text: string, limit?: number): string;

// -- actions, deals, scores ----------------------------------------------------------------

export type ThrowKind = 'single' | 'set' | 'run';
export type Source = 'deck' | 'offer';
export interface Call { readonly type: 'call' }
export interface Throw { readonly type: 'throw'; readonly cards: readonly Card[] }
/** `card` is null for a pick from the deck (the kit knows the top card). */
export interface Pick { readonly type: 'pick'; readonly source: Source; readonly card: Card | null }
export interface Timeout { readonly type: 'timeout' }
/** throws.slapdown (the kit plays none: refused slapdown_not_allowed). */
export interface Slapdown { readonly type: 'slapdown'; readonly card: Card }
export type Action = Call | Throw | Pick | Timeout | Slapdown;

/** A hand to start, every card already placed. */
export interface Deal {
  readonly round: number;
  readonly starter: Seat;
  readonly dealer: Seat | null;
  readonly turnOrder: readonly Seat[];
  /** Per seat, canonical order; [] for a seat that is out. */
  readonly hands: readonly (readonly Card[])[];
  /** The first offer; null when no card is turned up (deal.first_offer none). */
  readonly turnedUp: Card | null;
  /** The rest of the deck, top card first. */
  readonly stock: readonly Card[];
}

/** The deal's layout of protocol 1.1 (`hands`, `turned_up`, `stock` of a deal request). */
export interface DealLayout {
  hands: Card[][];
  turnedUp: Card | null;
  stock: Card[];
}

/** What the engine scored for a hand (hook scoreRound). */
export interface RoundScore {
  /** The caller on a won call, the seat that beat it on a beaten call; null when the deck ran out. */
  winner: Seat | null;
  /** Per seat: the points the round scored. */
  deltas: readonly number[];
  /** Per seat, after the profile's score cuts. */
  scores: readonly number[];
  /** The seats this round put out. */
  eliminated?: readonly Seat[];
}

export interface Payment { from: Seat; to: Seat; points: number; dollars: string }

// -- options and profiles ------------------------------------------------------------------

export interface OptionSpec {
  name: string;
  type: 'integer' | 'decimal' | 'boolean' | 'choice';
  default?: Scalar;
  values?: Scalar[] | null;
  range?: { min: number | string; max: number | string | null; step: number | string } | null;
  sets?: string | string[];
  map?: { [value: string]: Json } | null;
  locked_when_open?: boolean;
  changes?: 'between_hands' | 'before_first_deal' | 'at_start_only';
}

export interface ResolvedProfile extends JsonObject {
  rules: JsonObject;
  option_values: { [name: string]: Scalar };
}

/** The canonical form of an option value (decimals as text with two decimals or more), or Refused. */
export declare function normalizeOption(spec: OptionSpec, value: unknown): Scalar;
export declare function decimalText(text: string): string;
/** `document` with `options` applied (start.options win; the others take their defaults): its
 * rules and options copied, every other value the document's own. */
export declare function resolveProfile(
  document: JsonObject,
  options?: { [name: string]: Scalar },
  check?: (name: string) => void,
): { profile: ResolvedProfile; specs: Map<string, OptionSpec & { targets: string[] }> };

/** Every value of a parameter, in a support declaration. */
export declare const ANY: { readonly toString: () => 'ANY' };
/** Per dotted path under `rules`: the values implemented, ANY, or a test of the value. */
export type RuleSupport = { readonly [path: string]: readonly Json[] | typeof ANY | ((value: Json) => boolean) };
/** The parameters the kit itself plays for a TrackedEngine; spread into a binding's RULES. */
export declare const KIT_RULES: RuleSupport;
/** Every value the kit's own procedure plays, per parameter it reads; any other value is
 * refused unsupported_profile whatever a binding's RULES say. */
export declare const KIT_PLAYS: { readonly [path: string]: readonly string[] };
/** The message naming the first parameter whose value the kit does not play, or null. */
export declare function kitUnplayed(rules: JsonObject, skip?: readonly string[]): string | null;
export declare function leaves(rules: JsonObject, prefix?: string): Generator<[string, Json]>;
export declare function sameJson(a: Json, b: Json): boolean;
/** Every rule parameter of the profile format, by dotted path. */
export declare const RULE_PARAMETERS: ReadonlySet<string>;
/** The message naming the first parameter `support` does not cover (or the format does not know), or null. */
export declare function unsupported(rules: JsonObject, support: RuleSupport, skip?: readonly string[]): string | null;
/** unsupported_option naming the option that set an unplayed parameter, else unsupported_profile. */
export declare function refuseUnsupported(rules: JsonObject, specs: Map<string, OptionSpec & { targets: string[] }>, support: RuleSupport, changing?: string | null): void;
export declare function checkSupport(rules: JsonObject, support: RuleSupport, code: ErrorCodeValue): void;

/** The parameters the kit reads, from a resolved profile's rules (Refused invalid_profile). */
export interface KitRules {
  readonly seatsMin: number;
  readonly seatsMax: number;
  readonly handSize: number;
  readonly jokersPerPack: number;
  readonly jokersWild: string;
  readonly packSteps: readonly { from_seats: number; packs: number }[];
  readonly cardValues: { readonly [rank: string]: number };
  readonly dealer: string;
  readonly firstStarter: number;
  /** deal.first_offer turned_up_card (false under none). */
  readonly turnsUpFirstOffer: boolean;
  readonly nextStarter: string;
  readonly ranksLeftOut: readonly string[];
  readonly setMin: number;
  readonly setMax: number;
  readonly setJokersAlone: boolean;
  readonly runMin: number;
  readonly runMax: number | null;
  readonly runMinNaturals: number;
  readonly runWrap: boolean;
  readonly runAce: string;
  readonly runOrder: 'any' | 'ascending';
  readonly runJokersExtend: 'up_first' | 'down_first';
  readonly single: 'any' | 'when_no_combination' | 'highest_when_no_combination';
  readonly singleJoker: boolean;
  readonly laid: 'as_placed' | 'by_rank' | 'runs_by_rank';
  readonly pickFromOffer: string;
  readonly onlyAfterMultiThrow: boolean;
  readonly multiThrowScope: 'turn' | 'hand' | 'game';
  readonly reshuffleMoment: string;
  readonly keptAside: string;
  readonly deckRunsOut: string;
  readonly deckRunsOutWhen: string;
  readonly scoring: string;
  readonly gameEnd: string;
  readonly rounds: number | null;
  readonly outAbove: number | null;
  readonly reachingIsOut: boolean;
  readonly money: { dollars_per_point: string; settlement?: string } | null;
  readonly timerSeconds: number;
  readonly timerExpiry: string;
  readonly raw: JsonObject;
}
export declare function readRules(rules: unknown): KitRules;
export declare function packsFor(rules: KitRules, seats: number): number;
export declare function profileCardValue(rules: KitRules, card: Card): number;
export declare function profileHandValue(rules: KitRules, cards: readonly Card[]): number;

// -- the profile's own rules, for bindings that want them -----------------------------------

export declare function runPositions(cards: readonly Card[], rules: KitRules): [Card, number][] | null;
export declare function classifyThrow(cards: readonly Card[], rules: KitRules): ThrowKind | null;
/** Every legal throw of `hand` (throws.single included), canonical (a run under
 * throws.run.order ascending in the order it must be placed), shorter first. */
export declare function legalThrowsOf(hand: readonly Card[], rules: KitRules): Card[][];
/** Whether throws.single_joker false refuses a joker thrown alone from `hand`. */
export declare function jokerAloneRefused(cards: readonly Card[], hand: readonly Card[], rules: KitRules): boolean;
/** A run's cards lowest first, each joker where it stands; any other throw as given. */
export declare function ascendingRun(cards: readonly Card[], rules: KitRules): Card[];
/** Whether `cards` are a run placed otherwise than lowest first (throws.run.order ascending). */
export declare function outOfOrder(cards: readonly Card[], rules: KitRules): boolean;
/** Whether throws.single (when_no_combination, highest_when_no_combination) refuses throwing `cards` alone from `hand`. */
export declare function singleRefused(cards: readonly Card[], hand: readonly Card[], rules: KitRules): boolean;
/** A throw's cards as they lie on the offer (throws.laid), the last on top. */
export declare function laidCards(cards: readonly Card[], kind: ThrowKind, rules: KitRules): Card[];
export declare function pickablePositions(offer: { cards: readonly Card[]; kind: ThrowKind | null }, rules: KitRules): number[];
export declare function standings(scores: readonly number[], outInRound: Map<Seat, number>, rules: KitRules): Seat[];
export declare function winners(scores: readonly number[], active: readonly Seat[], rules: KitRules): Seat[];
/** A one-hand game's winners and standings, from its last round. */
export declare function handWinners(lastRound: { winner: Seat | null; hand_values: (number | null)[] }): Seat[];
export declare function handStandings(lastRound: { winner: Seat | null; hand_values: (number | null)[] }): Seat[];
/** Whether a seat in play passed game_end.out_above (reached it, with reaching_is_out). */
export declare function pastTarget(scores: readonly number[], active: readonly Seat[], rules: KitRules): boolean;
export declare function gameOverAfterRound(round: number, scores: readonly number[], active: readonly Seat[], rules: KitRules): boolean;
export declare function settlement(scores: readonly number[], money: { dollars_per_point: string; settlement?: string }): Payment[];

// -- the tracked engine --------------------------------------------------------------------

export declare const Phase: {
  readonly AWAITING_DEAL: 'awaiting_deal';
  readonly CALL_OR_THROW: 'call_or_throw';
  readonly PICK: 'pick';
  readonly AWAITING_RESHUFFLE: 'awaiting_reshuffle';
  readonly ROUND_OVER: 'round_over';
  readonly GAME_OVER: 'game_over';
};
export type PhaseValue = (typeof Phase)[keyof typeof Phase];

/** The kit's record of a table; hooks may read it, only the kit writes it. */
export interface Table {
  readonly seats: number;
  readonly phase: PhaseValue;
  readonly round: number;
  readonly scores: readonly number[];
  readonly active: readonly Seat[];
  readonly outInRound: ReadonlyMap<Seat, number>;
  readonly starter: Seat;
  readonly toAct: Seat | null;
  /** As held (the kit reports them in canonical order). */
  readonly hands: readonly (readonly Card[])[];
  /** Top card first. */
  readonly deck: readonly Card[];
  readonly offer: readonly Card[];
  readonly offerKind: ThrowKind | null;
  readonly thrown: readonly Card[];
  readonly thrownKind: ThrowKind | null;
  readonly outOfPlay: readonly Card[];
  readonly drawWaiting: Seat | null;
  readonly timeoutWaiting: Seat | null;
  readonly turnsTaken: number;
  readonly multiThrowers: ReadonlySet<Seat>;
  readonly lastRound: JsonObject | null;
  readonly result: JsonObject | null;
}

export interface EngineInfo {
  name: string;
  version: string;
  language?: string;
  commands?: readonly Command[];
  actions?: readonly ('call' | 'throw' | 'pick' | 'timeout' | 'slapdown')[];
  /** Protocol 1.1: the state fields the engine reports; absent means all. */
  stateFields?: readonly string[];
  /** Protocol 1.1: the state fields the kit keeps itself, not read from the engine
   * (`hello.supports.kit_kept_fields`); absent means none. */
  kitKeptFields?: readonly StateField[];
  /** Protocol 1.2: the engine answers each line in order whatever was written after it
   * (`hello.supports.requests_ahead`), as `serve` does; default true. */
  requestsAhead?: boolean;
}

/** A field of `state`. */
export type StateField =
  | 'phase' | 'round' | 'seats' | 'active' | 'eliminated' | 'dealer' | 'starter' | 'to_act'
  | 'hands' | 'hand_values' | 'offer' | 'offer_kind' | 'pickable' | 'thrown' | 'multi_throwers'
  | 'deck' | 'deck_size' | 'out_of_play' | 'turns_taken' | 'scores' | 'options' | 'last_round'
  | 'result';
/** The fields of `state`, in the order docs/protocol.md lists them. */
export declare const STATE_FIELDS: readonly StateField[];
/** An observation hook of TrackedEngine. */
export type ObservationHook =
  | 'observedHands' | 'observedStarter' | 'observedPhase' | 'observedGameOver'
  | 'observedWinners' | 'observedScores' | 'observedThrow' | 'observedDeck';
/** The observation hooks, each with the state fields it makes the engine's. */
export declare const OBSERVATIONS: { readonly [hook in ObservationHook]: readonly StateField[] };
/** The state fields the kit keeps itself, for a binding implementing the optional `hooks`. */
export declare function kitKeptFields(hooks: readonly string[]): StateField[];

/** A hook's answer: the value, or a promise of it (the kit awaits it). */
export type Awaitable<T> = T | PromiseLike<T>;

/** Whether `value` is a promise (any thenable). */
export declare function isThenable(value: unknown): value is PromiseLike<unknown>;
/** Run a procedure written as a generator yielding hook answers: synchronously while no
 * answer is a promise, else as a promise. */
export declare function drive<T>(procedure: Generator<unknown, T, unknown>): Awaitable<T>;

/** What a Session drives: one table, checked from step 4 of the order of checks. Each
 * answer is a promise when a hook answered with one. */
export interface Backend {
  start(profile: JsonObject, options: { [name: string]: Scalar }, seats: number): Awaitable<void>;
  deal(deck: Card[], layout: DealLayout | null): Awaitable<JsonObject[]>;
  act(seat: Seat, action: Action): Awaitable<JsonObject[]>;
  reshuffle(order: Card[]): Awaitable<JsonObject[]>;
  setOption(name: string, value: Scalar): Awaitable<JsonObject[]>;
  endGame(): Awaitable<JsonObject[]>;
  state(): Awaitable<JsonObject>;
  legal(): Awaitable<JsonObject | null>;
}

/**
 * The protocol's bookkeeping around an engine that knows only the card play. Subclass it,
 * declare NAME, VERSION and RULES, implement the hooks, and `main(new MyBinding())`.
 */
export declare class TrackedEngine implements Backend {
  static NAME: string;
  static VERSION: string;
  static LANGUAGE: string;
  static RULES: RuleSupport;
  /** The options the engine lets a host set; null: every option of the profile. */
  static OPTIONS: readonly string[] | null;
  static info(): EngineInfo;
  /** The observation hooks the binding implements. */
  static observedHooks(): ObservationHook[];

  /** The kit's record of the open table. */
  table: Table | null;
  /** The resolved rules of this (or the next) hand. */
  rules: JsonObject;
  kitRules: KitRules | null;

  // Hooks: each may be async (return a promise); the kit awaits it.
  /** A table of `seats` opens under `rules` (the resolved profile's rules). */
  beginGame(rules: JsonObject, seats: number): Awaitable<void>;
  /** Start a hand with exactly these hands, turned-up card and stock. */
  beginHand(deal: Deal): Awaitable<void>;
  /** What the engine refuses (asked after the kit's own checks); must change nothing. */
  refusal(seat: Seat, action: Action): Awaitable<Refusal | ErrorCodeValue | null | undefined>;
  onCall(seat: Seat): Awaitable<void>;
  /** Play an accepted throw (cards as placed) and name it. */
  onThrow(seat: Seat, cards: Card[]): Awaitable<ThrowKind>;
  onPick(seat: Seat, card: Card, source: Source): Awaitable<void>;
  /** The cards out of play become the deck, `stock[0]` on top. */
  onReshuffle(stock: readonly Card[]): Awaitable<void>;
  /** The value of any cards under the engine's rules. */
  handValue(cards: Card[]): Awaitable<number>;
  /** Score the hand just ended (`caller` null: the deck ran out). */
  scoreRound(caller: Seat | null, handValues: (number | null)[]): Awaitable<RoundScore>;
  /** Default: the profile's money rules (null without money). */
  settlement(scores: number[]): Awaitable<Payment[] | null>;
  /** Default: the profile's pick.from_offer. */
  pickablePositions(offer: Card[], kind: ThrowKind): Awaitable<number[]>;
  /** Default: `refusal` asked about every sub-multiset of the hand. */
  legalThrows(seat: Seat, hand: Card[]): Awaitable<Card[][]>;

  // Observation hooks, optional: what the engine decided. The kit asks one only when the
  // binding implements it, and answers with the engine's value (docs/kit.md).
  /** Every seat's hand as the engine holds it now (state.hands, hand_values, dealt.hands). */
  observedHands(): Awaitable<readonly (readonly Card[])[]>;
  /** The seat that starts the next hand, asked once a hand has ended; the kit follows it. */
  observedStarter(): Awaitable<Seat>;
  /** The engine's phase now (state.phase). */
  observedPhase(): Awaitable<PhaseValue>;
  /** Whether the engine's game is over, asked after each hand is scored; the kit follows it. */
  observedGameOver(): Awaitable<boolean>;
  /** The seats that win, asked as the game ends; the kit follows it. */
  observedWinners(): Awaitable<readonly Seat[]>;
  /** Each seat's total as the engine keeps it (state.scores). */
  observedScores(): Awaitable<readonly number[]>;
  /** The throw just made in the order the engine lays it, asked after onThrow; followed. */
  observedThrow(): Awaitable<readonly Card[]>;
  /** The engine's deck now, top card first (state.deck, deck_size). */
  observedDeck(): Awaitable<readonly Card[]>;

  // Views the hooks may use (promises when pickablePositions is async).
  pickable(): Awaitable<Card[]>;
  offerOpenTo(seat: Seat): boolean;

  // Backend.
  start(profile: JsonObject, options: { [name: string]: Scalar }, seats: number): Awaitable<void>;
  deal(deck: Card[], layout: DealLayout | null): Awaitable<JsonObject[]>;
  act(seat: Seat, action: Action): Awaitable<JsonObject[]>;
  reshuffle(order: Card[]): Awaitable<JsonObject[]>;
  setOption(name: string, value: Scalar): Awaitable<JsonObject[]>;
  endGame(): Awaitable<JsonObject[]>;
  state(): Awaitable<JsonObject>;
  legal(): Awaitable<JsonObject | null>;
}

export declare function nextActive(table: Pick_<Table, 'seats' | 'active'>, seat: Seat): Seat;
export declare function turnOrderFrom(table: Pick_<Table, 'seats' | 'active'>, first: Seat): Seat[];
type Pick_<T, K extends keyof T> = { [P in K]: T[P] };

// -- the protocol session --------------------------------------------------------------------

export type Response = { seq: number | null; ok: boolean; [field: string]: Json };
export declare function requestSeq(request: unknown): number | null;
export declare function errorResponse(seq: number | null, code: ErrorCodeValue, message: string): Response;
export declare function fieldOf(request: JsonObject, name: string, kind: 'object' | 'array' | 'string' | 'integer'): Json;
export declare function actionOf(data: JsonObject): Action;
export declare function dealLayout(request: JsonObject): DealLayout | null;
export declare function decodeRequest(line: Uint8Array): Json;

/** One engine process: the handshake and at most one table. */
export declare class Session {
  constructor(backend: Backend, info: EngineInfo);
  readonly backend: Backend;
  readonly info: Required<Omit<EngineInfo, 'stateFields' | 'kitKeptFields'>>
    & Pick_<EngineInfo, 'stateFields' | 'kitKeptFields'>;
  started: boolean;
  stopped: boolean;
  /** The response to one decoded request (a promise of it when a hook answered with one). */
  handle(request: unknown): Awaitable<Response>;
}

/** Feed request bytes in; `write` gets each response line (newline included). */
export declare function lineServer(
  session: Session,
  write: (line: string) => void,
  onStop?: () => void,
): { push(chunk: Uint8Array): void; end(): Promise<void> };
/** Serve on standard input and output until stop or end of input, then exit 0. */
export declare function serve(session: Session, options?: { quietPrints?: boolean }): void;
export declare function run(session: Session): void;
/** Serve a TrackedEngine: a binding's whole main. */
export declare function main(engine: TrackedEngine): void;

// -- a game loop as an engine --------------------------------------------------------------

/** The loop's table was replaced by a new start: its pending wait rejects with this. */
export declare class LoopAbandoned extends Error {}

/** Serve an engine written as one async game loop: the loop awaits `wait(seat, decision)`
 * for each move; the binding's hooks `await send(seat, decision, move)`. */
export declare class LoopDriver {
  constructor(options?: { refused?: { [decision: string]: ErrorCodeValue }; timeout?: number });
  readonly refused: { [decision: string]: ErrorCodeValue };
  timeout: number;
  lastMessage: string;
  /** Run `loop` (abandoning a running one); settles once it first waits or ends. */
  start(loop: (driver: LoopDriver) => Promise<void> | void): Promise<void>;
  /** The decision the loop waits for, or null. */
  waiting(): [Seat | null, string] | null;
  readonly ended: boolean;
  /** Hand over a move; settles once the loop waits again or ends; Refused if it asks the same again. */
  send(seat: Seat | null, decision: string, move: unknown): Promise<void>;
  /** The loop's side: the protocol's move for this decision. */
  wait<T = unknown>(seat: Seat | null, decision: string): Promise<T>;
  /** The loop's side: why the engine refused the last move. */
  refuse(message: string): void;
}
