"""Generate tests/data/draughts_oracle_positions.tsv for the draughts differential test.

Run once (deterministic, seeded; takes a few minutes):
    /work/venv/bin/python tests/oracle/gen_draughts_positions.py [--seed 20261130] [--out PATH]

Positions come from random playouts driven by py-draughts itself (never by boardgym, so the
generator is independent of the kernel under test):
  * playouts from the initial position (uniform random legal moves);
  * playouts from random sparse positions with kings (1-7 pieces a side, each a king with
    probability 0.45), and from "kings against many men" set-ups (1-2 kings against 5-10 men),
    which breed long king chains, several landing squares and the Turkish strike.
Each visited position is tagged with draughts_ref.features (cap, long, kingmulti, promo, turkish,
kings, nomove) and the file is filled by quotas per tag so the interesting cases are well
represented. A subset carries py-draughts' perft at depth 3 (and a smaller one at depth 4).

Output: one line per position: numeric FEN <TAB> comma-separated tags <TAB> perft entries
("3:1234 4:56789" or empty).
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import draughts_ref as ref  # noqa: E402

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "data" / "draughts_oracle_positions.tsv"

# How many positions to keep per tag (a position counts for its rarest tag first).
QUOTAS = {
    "turkish": 350,
    "promo": 350,
    "kingmulti": 400,
    "long": 400,
    "nomove": 40,
    "cap": 600,
    "kings": 350,
    "opening": 300,  # quiet positions from start-position playouts
}
ORDER = ["turkish", "promo", "nomove", "kingmulti", "long", "cap", "kings", "opening"]
N_PERFT3 = 240
N_PERFT4 = 40


def random_sparse_fen(rng: random.Random) -> str:
    """A random legal-looking sparse position: 1-7 pieces a side, many kings, no man on its crowning
    row."""
    squares = list(range(32))
    rng.shuffle(squares)
    nw, nb = rng.randint(1, 7), rng.randint(1, 7)
    pieces = []
    for colour, n in (("W", nw), ("B", nb)):
        for _ in range(n):
            sq = squares.pop()
            promo = ref.PROMO_WHITE if colour == "W" else ref.PROMO_BLACK
            king = rng.random() < 0.45 or sq in promo
            pieces.append((sq, colour, king))
    return ref.to_numeric_fen(rng.choice("WB"), pieces)


def kings_vs_men_fen(rng: random.Random) -> str:
    """1-2 kings (plus up to 2 men) of one side against 5-10 men (and maybe a king) of the other."""
    squares = list(range(32))
    rng.shuffle(squares)
    strong = rng.choice("WB")
    weak = "B" if strong == "W" else "W"
    pieces = []
    for _ in range(rng.randint(1, 2)):
        pieces.append((squares.pop(), strong, True))
    for colour, n in ((strong, rng.randint(0, 2)), (weak, rng.randint(5, 10))):
        promo = ref.PROMO_WHITE if colour == "W" else ref.PROMO_BLACK
        for _ in range(n):
            sq = squares.pop()
            pieces.append((sq, colour, sq in promo or rng.random() < 0.08))
    return ref.to_numeric_fen(rng.choice((strong, strong, weak)), pieces)


def playout(rng: random.Random, fen: str, plies: int):
    """Random legal moves with py-draughts from fen; yields each visited position's numeric FEN."""
    b = ref.board(fen)
    for _ in range(plies):
        yield ref.ref_fen(b)
        moves = b.legal_moves
        if not moves:
            return
        b.push(rng.choice(moves))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=20261130)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    start = ref.ref_fen(ref.Board())

    buckets: dict[str, list[tuple[str, set]]] = {k: [] for k in ORDER}
    seen: set[str] = set()

    def offer(fen: str, from_start: bool) -> None:
        if fen in seen:
            return
        seen.add(fen)
        tags = ref.features(fen)
        if from_start and not (tags & {"cap", "kings"}):
            tags.add("opening")
        for k in ORDER:
            if k in tags:
                if len(buckets[k]) < QUOTAS[k] * 3:
                    buckets[k].append((fen, tags))
                return

    def full() -> bool:
        return all(len(buckets[k]) >= QUOTAS[k] for k in ORDER)

    rounds = 0
    while not full() and rounds < 40000:
        rounds += 1
        kind = rounds % 3
        if kind == 0:
            for fen in playout(rng, start, 200):
                offer(fen, True)
        elif kind == 1:
            for fen in playout(rng, random_sparse_fen(rng), rng.randint(1, 12)):
                offer(fen, False)
        else:
            for fen in playout(rng, kings_vs_men_fen(rng), rng.randint(1, 6)):
                offer(fen, False)
        if rounds % 500 == 0:
            print(rounds, {k: len(v) for k, v in buckets.items()}, file=sys.stderr)

    chosen: list[tuple[str, set]] = []
    for k in ORDER:
        pool = buckets[k]
        rng.shuffle(pool)
        chosen.extend(pool[: QUOTAS[k]])
    rng.shuffle(chosen)

    # Perft subsets: prefer positions with captures and kings (the hard part of the rules).
    idx = list(range(len(chosen)))
    rng.shuffle(idx)
    idx.sort(
        key=lambda i: -len(chosen[i][1] & {"cap", "kings", "long", "kingmulti", "promo", "turkish"})
    )
    perft: dict[int, list[str]] = {}
    for j, i in enumerate(idx[:N_PERFT3]):
        fen = chosen[i][0]
        entries = [f"3:{ref.ref_perft(ref.board(fen), 3)}"] if ref.board(fen).legal_moves else []
        if j < N_PERFT4 and entries:
            entries.append(f"4:{ref.ref_perft(ref.board(fen), 4)}")
        perft[i] = entries

    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w") as f:
        for i, (fen, tags) in enumerate(chosen):
            f.write(f"{fen}\t{','.join(sorted(tags))}\t{' '.join(perft.get(i, []))}\n")
    counts = {
        k: sum(k in t for _, t in chosen) for k in sorted({t for _, ts in chosen for t in ts})
    }
    print(f"wrote {len(chosen)} positions to {args.out}: {counts}", file=sys.stderr)


if __name__ == "__main__":
    main()
