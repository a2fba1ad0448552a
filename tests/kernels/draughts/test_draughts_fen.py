"""The FEN kernel (kernels/draughts/fen.py) gives the position the Python reader gives, or gives
up: on the oracle positions, their algebraic and range forms, and thousands of mutated texts
(every text the kernel accepts, the Python reader accepts with the same position)."""

import random
from pathlib import Path

from boardgym.envs import draughts as D
from boardgym.kernels.draughts.fen import parse_fen
from boardgym.kernels.draughts.outcome import RULES_ALL

DATA = Path(__file__).resolve().parents[2] / "data" / "draughts_oracle_positions.tsv"
ALPHABET = "WBwbKk0123456789,:-.abcdefghAH  \t[]\"'FEN9x"


def oracle_fens():
    return [line.split("\t")[0] for line in DATA.read_text().splitlines() if line.strip()]


def python_fen(text, rules=RULES_ALL):
    try:
        return D._read_fen(text, rules)
    except ValueError:
        return None


def kernel_fen(text, rules=RULES_ALL):
    s = parse_fen(text.encode(), rules)
    return s if s.shape[0] else None


def agree(text, rules=RULES_ALL):
    """The kernel's answer for text agrees with Python's -> whether the kernel read it."""
    k = kernel_fen(text, rules)
    if k is None:
        return False
    p = python_fen(text, rules)
    assert p is not None, f"kernel accepts {text!r}, Python rejects it"
    assert (k == p).all(), text
    return True


def test_kernel_reads_the_plain_forms_like_python():
    fens = oracle_fens()
    more = [
        "W:W21-32:B1-12",
        "w:w21-32:b1-12.",
        "B:BK1-3,5:W29",
        "W:W:B1",
        "W:Wa1,C3,kh2:Bb8,KD8",
        "W:W0021,K007:B1",
        "B:B13,16:WK10-12",
    ]
    for i, f in enumerate(fens + more):
        assert agree(f, rules=i % (RULES_ALL + 1)), f
    for f in fens[:300]:  # the same positions written algebraically
        assert agree(D.to_fen(D._read_fen(f, RULES_ALL))), f


def test_kernel_gives_up_on_errors_and_other_forms():
    for text in [
        "",
        "W",
        "W:W1",
        "W:W1:W2",
        "W:W1:B1",
        "W:W1:B2:",
        "X:W1:B2",
        "W:W1,:B2",
        "W:W,1:B2",
        "W:W33:B1",
        "W:W0:B1",
        "W:W3-1:B5",
        "W:Wa2:B1",
        "W:Wb8:B1",
        "W:W1-13:B20",
        "W:W1,K1:B5",
        "W:WKK1:B5",
        "W:W1 :B2",
        '[FEN "W:W21:B1"]',
        "W:W21:B1..",
        "W:W21-:B1",
        "W:W-21:B1",
        "W:W21:B9999999999999999999999",
        "W:Wc3x:B1",
        "WW:W1:B2",
        "W:Wi1:B2",
        "W:W1:B2\u00e9"[:-1] + "x",
    ]:
        assert kernel_fen(text) is None, text


def test_mutated_fens_agree():
    rng = random.Random(7)
    fens = oracle_fens()
    read = 0
    for _ in range(6000):
        t = list(rng.choice(fens))
        for _ in range(rng.randint(1, 3)):
            k = rng.randrange(len(t) + 1)
            how = rng.random()
            if how < 0.4 and k < len(t):
                t[k] = rng.choice(ALPHABET)
            elif how < 0.7:
                t.insert(k, rng.choice(ALPHABET))
            elif k < len(t):
                del t[k]
        read += agree("".join(t))
    assert read > 200  # some mutations are still positions the kernel reads


def test_from_fen_answers_as_before_on_every_text():
    rng = random.Random(8)
    fens = oracle_fens()
    for _ in range(1500):
        t = list(rng.choice(fens))
        t[rng.randrange(len(t))] = rng.choice(ALPHABET)
        text = "".join(t)
        want = python_fen(text)
        if want is None:
            try:
                D.from_fen(text)
            except ValueError:
                continue
            raise AssertionError(f"from_fen accepts {text!r}")
        assert (D.from_fen(text) == want).all()
    s = D.from_fen("W:W21-32:B1-12")
    s[0] = s[0]  # a fresh, writable array
    assert s.flags.writeable
