// The protocol core: seq, the first steps of the order of checks, hello, the transport.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  COMMANDS, ErrorCode, MAX_LINE_BYTES, MAX_SEQ, Refused, Session, canonical, clipWords,
  decodeRequest, lineServer, requestSeq,
} from '../jhyap-kit.mjs';
import { ProfileEngine, session } from './profile-engine.mjs';

const code = (response) => response.error?.code;

test('seq: an integer of 0 to 2^53 - 1, else null', () => {
  assert.equal(requestSeq({ seq: 0 }), 0);
  assert.equal(requestSeq({ seq: MAX_SEQ }), 9007199254740991);
  for (const bad of [MAX_SEQ + 1, -1, 2.5, '7', true, null, undefined, NaN]) {
    assert.equal(requestSeq({ seq: bad }), null, `seq ${String(bad)}`);
  }
  assert.equal(requestSeq([1, 2, 3]), null);
  assert.equal(requestSeq('a string'), null);
});

test('seq written as no JSON integer (1e-400, 1.0, 1e2) is null, as in the Python kit', () => {
  // JSON.parse reads 1e-400 as 0 and 1.0 as 1: the seq's own text decides.
  const seq = (line) => requestSeq(decodeRequest(Buffer.from(line)));
  for (const line of ['{"seq": 1e-400, "cmd": "state"}', '{"seq":1.0}', '{"seq":1e2}', '{"s\\u0065q":2.0}', '{"seq":5,"seq":1.0}']) {
    assert.equal(seq(line), null, line);
  }
  assert.equal(seq('{"seq":7}'), 7);
  assert.equal(seq('{"x":{"seq":1.5},"a":"\\"seq\\":1.0","seq":3}'), 3);
  assert.equal(seq('{"seq":1.0,"seq":5}'), 5);
  // Where "seq" is written once, but not as the top-level key (escapes spell that one).
  assert.equal(seq('{"s\\u0065q":1.0,"a\\"seq":2}'), null);
  assert.equal(seq('{"x":{"seq":1.0},"s\\u0065q":4}'), 4);
  assert.equal(seq('{"x":"\\\\","seq":2.5,"t":"\\u091d"}'), null);
});

test('the line: not an object, no seq, no cmd, an unknown command', async () => {
  const { session: s } = await session();
  assert.deepEqual(s.handle([1, 2, 3]), { seq: null, ok: false, error: { code: 'bad_request', message: 'a request must be a JSON object' } });
  assert.deepEqual(s.handle({ cmd: 'state' }).seq, null);
  assert.equal(code(s.handle({ cmd: 'state' })), 'bad_request');
  assert.equal(code(s.handle({ seq: 3 })), 'bad_request');
  assert.equal(code(s.handle({ seq: 3, cmd: 7 })), 'bad_request');
  assert.deepEqual(s.handle({ seq: 4, cmd: 'STATE' }), { seq: 4, ok: false, error: { code: 'unknown_command', message: 'unknown command "STATE"' } });
  assert.equal(code(s.handle({ seq: 5, cmd: 'shuffle' })), 'unknown_command');
});

test('arguments are checked before the game: bad_request, then invalid_card, then wrong_phase', async () => {
  const { send } = await session();
  assert.equal(code(send({ cmd: 'act', seat: 0, action: { type: 'dance' } })), 'bad_request');
  assert.equal(code(send({ cmd: 'act', seat: '0', action: { type: 'call' } })), 'bad_request');
  assert.equal(code(send({ cmd: 'act', seat: 0, action: { type: 'pick' } })), 'bad_request');
  assert.equal(code(send({ cmd: 'act', seat: 0, action: { type: 'pick', from: 'offer' } })), 'bad_request');
  assert.equal(code(send({ cmd: 'act', seat: 0, action: { type: 'throw', cards: ['Xx'] } })), 'invalid_card');
  assert.equal(code(send({ cmd: 'act', seat: 0, action: { type: 'throw', cards: ['Xx', 7] } })), 'bad_request');
  assert.equal(code(send({ cmd: 'act', seat: 0, action: { type: 'call' } })), 'wrong_phase');
  assert.equal(code(send({ cmd: 'state' })), 'wrong_phase');
  assert.equal(code(send({ cmd: 'legal' })), 'wrong_phase');
  assert.equal(code(send({ cmd: 'deal', deck: ['Ac', 'Xx'] })), 'invalid_card');
  assert.equal(code(send({ cmd: 'deal', deck: ['Ac', '2c'] })), 'wrong_phase');
  assert.equal(code(send({ cmd: 'reshuffle', order: ['Zz'] })), 'invalid_card');
  assert.equal(code(send({ cmd: 'reshuffle', order: [] })), 'wrong_phase');
  assert.equal(code(send({ cmd: 'set_option', name: 'call_limit', value: [12] })), 'bad_request');
  assert.equal(code(send({ cmd: 'set_option', name: 'no_such_option', value: 12 })), 'wrong_phase');
  assert.equal(code(send({ cmd: 'end_game' })), 'wrong_phase');
  assert.equal(code(send({ cmd: 'start', profile: 'dashain', seats: 3 })), 'bad_request');
  assert.equal(code(send({ cmd: 'start', profile: {}, seats: 3 })), 'invalid_profile');
  assert.equal(code(send({ cmd: 'start', profile: { id: 'nothing' }, options: { no_such_option: 1 }, seats: 99 })), 'invalid_profile');
});

test('hello: the engine, the version, what it supports', async () => {
  const { send } = await session();
  assert.deepEqual(send({ cmd: 'hello', protocol: '1.0' }), {
    seq: 0,
    ok: true,
    engine: { name: 'profile-engine', version: '0.0.1', language: 'javascript' },
    protocol: '1.2',
    supports: {
      commands: [...COMMANDS],
      actions: ['call', 'throw', 'pick', 'timeout', 'slapdown'],
      // Every field but the throw's kind and the scores, which the hooks answer.
      kit_kept_fields: ['phase', 'round', 'seats', 'active', 'eliminated', 'dealer', 'starter',
        'to_act', 'hands', 'hand_values', 'offer', 'pickable', 'thrown', 'multi_throwers', 'deck',
        'deck_size', 'out_of_play', 'turns_taken', 'options', 'last_round', 'result'],
      // lineServer answers each line in order, whatever was written after it.
      requests_ahead: true,
    },
  });
  assert.equal(send({ cmd: 'hello', protocol: '1.1' }).protocol, '1.2');
  assert.equal(send({ cmd: 'hello', protocol: '1.7' }).protocol, '1.2');
  assert.equal(code(send({ cmd: 'hello', protocol: '2.0' })), 'unsupported_protocol');
  assert.equal(code(send({ cmd: 'hello', protocol: 'one' })), 'bad_request');
  assert.equal(code(send({ cmd: 'hello' })), 'bad_request');
  assert.deepEqual(send({ cmd: 'stop' }), { seq: 6, ok: true });
});

test('hello lists state_fields only when the engine declares them', () => {
  const s = new Session(new ProfileEngine(), { name: 'n', version: '1', stateFields: ['phase', 'round'] });
  assert.deepEqual(s.handle({ seq: 1, cmd: 'hello', protocol: '1.0' }).supports.state_fields, ['phase', 'round']);
});

test('hello leaves requests_ahead out when the engine says it cannot take requests ahead', () => {
  const s = new Session(new ProfileEngine(), { name: 'n', version: '1', requestsAhead: false });
  const { supports } = s.handle({ seq: 1, cmd: 'hello', protocol: '1.2' });
  assert.equal('requests_ahead' in supports, false);
  assert.deepEqual(Object.keys(supports), ['commands', 'actions']);
});

test('an engine exception is internal_error, and the session keeps serving', async () => {
  class Broken extends ProfileEngine {
    beginGame() { throw new TypeError('boom'); }
  }
  const { send } = await session(Broken);
  const answer = send({ cmd: 'start', profile: (await import('./profile-engine.mjs')).fixture('bga-yaniv'), seats: 2 });
  assert.equal(answer.error.code, 'internal_error');
  assert.match(answer.error.message, /^TypeError: boom/);
  assert.equal(code(send({ cmd: 'state' })), 'wrong_phase');
});

test('Refused takes protocol codes only', () => {
  assert.equal(new Refused(ErrorCode.ILLEGAL_THROW, 'no').code, 'illegal_throw');
  assert.throws(() => new Refused('nonsense', 'no'), TypeError);
});

test('cards in canonical order; long words clipped in messages', () => {
  assert.deepEqual(canonical(['X', 'Kh', 'As', 'Ac', '2d', 'Td']), ['Ac', 'As', '2d', 'Td', 'Kh', 'X']);
  assert.equal(clipWords('a short message'), 'a short message');
  assert.equal(clipWords(`cmd ${'x'.repeat(100)}`), `cmd ${'x'.repeat(79)}… (100 characters)`);
});

function served(chunks) {
  const out = [];
  let stopped = 0;
  const s = new Session(new ProfileEngine(), ProfileEngine.info());
  const server = lineServer(s, (line) => out.push(line), () => { stopped += 1; });
  for (const c of chunks) server.push(Buffer.from(c));
  server.end();
  return { lines: out.map((l) => JSON.parse(l)), raw: out, stopped };
}

test('transport: one line per response, blank lines ignored, lines split across chunks', () => {
  const { lines, raw } = served(['{"seq":1,"cmd":"he', 'llo","protocol":"1.0"}\n\n  \r\n{"seq":2,', '"cmd":"state"}\r\n']);
  assert.equal(lines.length, 2);
  assert.equal(lines[0].ok, true);
  assert.deepEqual(lines[1], { seq: 2, ok: false, error: { code: 'wrong_phase', message: "no game: send 'start' first" } });
  assert.ok(raw.every((l) => l.endsWith('\n') && l.indexOf('\n') === l.length - 1));
});

test('transport: not JSON, NaN, invalid UTF-8 are bad_request with seq null', () => {
  const { lines } = served(['this is not json\n{"seq": NaN, "cmd": "state"}\n', Buffer.from([0x7b, 0xff, 0x7d, 0x0a])]);
  assert.deepEqual(lines.map((l) => [l.seq, l.error.code]), [[null, 'bad_request'], [null, 'bad_request'], [null, 'bad_request']]);
  assert.equal(lines[2].error.message, 'not JSON: the line is not UTF-8');
});

test('transport: a line of 1 MiB is served; one byte more is bad_request and serving goes on', () => {
  const head = '{"seq":1,"cmd":"state","pad":"';
  const fits = head + 'x'.repeat(MAX_LINE_BYTES - head.length - 2) + '"}';
  assert.equal(Buffer.byteLength(fits), 1048576);
  const over = `${fits} `;
  const { lines } = served([`${fits}\n`, over.slice(0, 5000), `${over.slice(5000)}\n`, '{"seq":3,"cmd":"state"}\n']);
  assert.deepEqual(lines.map((l) => [l.seq, l.error.code]), [[1, 'wrong_phase'], [null, 'bad_request'], [3, 'wrong_phase']]);
  assert.equal(lines[1].error.message, 'request line longer than 1048576 bytes');
});

test('transport: nothing is answered after stop', () => {
  const { lines, stopped } = served(['{"seq":1,"cmd":"stop"}\n{"seq":2,"cmd":"state"}\n']);
  assert.deepEqual(lines, [{ seq: 1, ok: true }]);
  assert.equal(stopped, 1);
});

test('transport: a last line without a newline is answered at end of input', () => {
  assert.deepEqual(served(['{"seq":9,"cmd":"stop"}']).lines, [{ seq: 9, ok: true }]);
});
