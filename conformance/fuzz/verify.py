"""A finding's transcript written only when it keeps its promise.

Every file ``jhyap fuzz`` leaves behind validates (as ``jhyap validate`` checks it), fails
against the engine and passes against the reference, each replayed on a fresh process
under the profile where it diverges. The shrunk plan is tried first, then the unshrunk
one (cut after its divergence); a file that breaks the promise is removed, and the
finding says why (a bug of the suite, to report).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from jhyap_core.profile import resolve

from ..harness.client import EngineClient
from ..harness.outcome import CaseStatus, Outcome
from ..harness.replay import replay
from ..spec.json_types import Json
from ..spec.transcript import check_transcript_file, load_transcript
from .config import FuzzConfig
from .driver import Divergence
from .plan import Plan
from .pool import CANDIDATE, EnginePair, PairPool
from .writer import transcript_data, transcript_id, write_transcript

Commands = Callable[[FuzzConfig, int, str, str], tuple[str, str]]


def replay_file(
    command: str,
    env: Mapping[str, str] | None,
    path: Path,
    documents: Mapping[str, Json],
    profile: str,
    timeout: float = 10.0,
) -> Outcome:
    """Replay one transcript file under ``profile`` on a fresh engine process."""
    transcript = load_transcript(path, documents)
    resolved = resolve(documents[profile], transcript.options)
    with EngineClient(command, timeout=timeout, env=env) as client:
        info = client.handshake()
        return replay(client, info, transcript, profile, resolved)


def verify(config: FuzzConfig, path: Path, profile: str) -> tuple[tuple[str, ...], bool]:
    """Whether the written transcript validates, fails against the engine and passes
    against the reference; one line per check."""
    problems = check_transcript_file(path, config.documents)
    if problems:
        return tuple(f"validate: {p}" for p in problems[:5]), False
    try:
        # Both replays at once: each is its own engine process.
        with ThreadPoolExecutor(2, thread_name_prefix="jhyap-fuzz-verify") as both:
            reference = both.submit(
                replay_file,
                config.reference,
                config.reference_env,
                path,
                config.documents,
                profile,
                config.timeout,
            )
            engine = both.submit(
                replay_file,
                config.engine,
                config.engine_env,
                path,
                config.documents,
                profile,
                config.timeout,
            )
            against_reference, against_engine = reference.result(), engine.result()
    except Exception as exc:  # an unreadable file is a suite bug: said, not raised
        return (f"the transcript could not be replayed: {exc}",), False
    where = (
        f" at step {against_engine.step}: {against_engine.reason}" if against_engine.step else ""
    )
    lines = (
        "validates",
        f"against the reference: {against_reference.status}",
        f"against the engine: {against_engine.status}{where}",
    )
    return (
        lines,
        against_reference.status == CaseStatus.PASSED
        and against_engine.status != CaseStatus.PASSED,
    )


def _answers(pool: PairPool, plan: Plan) -> list[dict[str, Json]]:
    def task(pair: EnginePair) -> list[dict[str, Json]]:
        return pair.reference_answers(plan)

    return pool.submit(task, CANDIDATE).result()


def verify_and_write(
    config: FuzzConfig,
    pool: PairPool,
    game: int,
    tries: Sequence[tuple[Plan, Divergence]],
    commands: Commands,
) -> tuple[Path | None, Mapping[str, Json], tuple[str, ...], bool]:
    """The first of ``tries`` whose transcript keeps its promise, written to ``config.out``
    (nothing written without ``out``): its path, data, check lines and whether it kept it."""
    lines: list[str] = []
    data: Mapping[str, Json] = {}
    for number, (plan, divergence) in enumerate(tries):
        profile = plan.profile
        ident = transcript_id(profile, config.seed, game)
        rerun, replay_command = commands(config, game, profile, ident)
        data = transcript_data(
            config.documents[profile],
            plan,
            _answers(pool, plan),
            divergence,
            seed=config.seed,
            game=game,
            engine=config.engine,
            rerun=rerun,
            replay=replay_command,
        )
        if config.out is None:
            return None, data, (), True
        path = write_transcript(config.out, data)
        checked, ok = verify(config, path, profile)
        if ok:
            note = () if number == 0 else ("(the shrunk transcript did not; this one is unshrunk)",)
            return path, data, (*checked, *note), True
        path.unlink(missing_ok=True)
        lines += [f"{'shrunk' if number == 0 else 'unshrunk'} transcript: {c}" for c in checked]
    return None, data, (*lines, "no transcript kept its promise: not written"), False


__all__ = ["replay_file", "verify", "verify_and_write"]
