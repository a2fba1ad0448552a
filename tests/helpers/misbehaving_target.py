"""A deliberately bad entry point for the fuzz runner's self-test
(tests/fuzz/test_fuzz_coverage.py)."""


def misbehave(x):
    """Segfault on 13, hang on 7, a Numba-style message on 5, KeyError on 3, accept 1, else
    ValueError."""
    if x == 13:
        import ctypes

        ctypes.string_at(0)
    if x == 7:
        while True:
            pass
    if x == 5:
        raise TypeError("Failed in nopython mode pipeline (step: nopython frontend)")
    if x == 3:
        raise KeyError(3)
    if x == 1:
        return "accepted"
    raise ValueError(f"bad value {x}")
