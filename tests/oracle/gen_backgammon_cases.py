"""Generate tests/data/backgammon_oracle_cases.tsv for the backgammon differential test.

Run once (deterministic, seeded; about 8 minutes: random play never closes all six entry
points, so the "closed" quota stays empty and every game is played; E.7 cases are hand-built
in the test instead):
    /work/venv/bin/python tests/oracle/gen_backgammon_cases.py [--seed 20261130] [--out PATH]

Cases come from random games driven by gnubg-nn itself (never by boardgym): from the standard
start, roll two dice, pick a uniformly random key of gnubg_nn.moves(board, d1, d2), decode it with
board_from_position_key and swap sides, as gnubg does; a roll with no move just swaps sides.
Random play hits often, so bar positions are plentiful; games run to the end, so bear-offs are too.
Each visited position is tried with every one of the 21 rolls and tagged by backgammon_ref.classify
(bar, bearoff, closed, enterhit, hit2bear, both, higher, pass, doubles); the file is filled by
quotas per tag so the rare B.5 traps (must use both dice, higher die) are well represented.
Every case's tags come from the plain rules model, whose legal set is checked here against gnubg
(the run aborts on any disagreement).

Output: one line per case: Position ID <TAB> die1 <TAB> die2 <TAB> comma-separated tags.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import backgammon_ref as ref  # noqa: E402

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "data" / "backgammon_oracle_cases.tsv"
START_PID = "4HPwATDgc/ABMA"
ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]
QUOTAS = {
    "higher": 60,
    "both": 200,
    "hit2bear": 30,
    "closed": 40,
    "enterhit": 250,
    "pass": 100,
    "bar": 500,
    "bearoff": 500,
    "other": 700,
}
ORDER = list(QUOTAS)


def random_game(rng: random.Random, max_plies: int = 400):
    """Yield the Position ID of every position with a player on roll in one random gnubg game."""
    board = ref.board_of(START_PID)
    for _ in range(max_plies):
        yield ref.pid_of(board)
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        keys = ref.gnubg.moves([list(x) for x in board], d1, d2)
        if keys:
            opp, me = ref.gnubg.board_from_position_key(rng.choice(keys))
            board = (tuple(opp), tuple(me))
            if sum(board[1]) == 0:
                return
        board = ref.swap(board)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=20261130)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--games", type=int, default=1500)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    buckets: dict[str, list[tuple[str, int, int, set]]] = {k: [] for k in ORDER}
    seen: set[str] = set()
    checked = 0
    for g in range(args.games):
        for pid in random_game(rng):
            if pid in seen:
                continue
            seen.add(pid)
            # Classifying every roll is the slow part; skip most plain positions once "other" is
            # full.
            if len(buckets["other"]) >= 3 * QUOTAS["other"] and rng.random() < 0.7:
                continue
            for d1, d2 in ROLLS:
                if rng.random() < 0.5:
                    d1, d2 = d2, d1
                tags, legal = ref.classify(pid, d1, d2)
                checked += 1
                theirs = ref.gnubg_afterstates(pid, d1, d2)
                if legal != theirs:
                    raise SystemExit(
                        f"rules model != gnubg: {pid} {d1}-{d2}\n model {legal}\n gnubg {theirs}"
                    )
                for k in ORDER:
                    if k in tags or k == "other":
                        if len(buckets[k]) < 3 * QUOTAS[k]:
                            buckets[k].append((pid, d1, d2, tags))
                        break
        if g % 100 == 0:
            print(g, checked, {k: len(v) for k, v in buckets.items()}, file=sys.stderr)
        if (
            all(len(buckets[k]) >= QUOTAS[k] for k in ORDER)
            and len(buckets["other"]) >= 3 * QUOTAS["other"]
        ):
            break
    chosen = []
    for k in ORDER:
        pool = buckets[k]
        rng.shuffle(pool)
        chosen.extend(pool[: QUOTAS[k]])
    rng.shuffle(chosen)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w") as f:
        for pid, d1, d2, tags in chosen:
            f.write(f"{pid}\t{d1}\t{d2}\t{','.join(sorted(tags))}\n")
    counts = {k: sum(k in c[3] for c in chosen) for k in sorted({t for c in chosen for t in c[3]})}
    print(
        f"{checked} cases checked against gnubg; wrote {len(chosen)} to {args.out}: {counts}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
