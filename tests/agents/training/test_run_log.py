"""metrics.jsonl read back (agents/training/run_log.py): what RunLog writes, read_metrics and
curve_series read (intervals as pairs, older files' half-widths, Wilson bands for win rates), and
a bad file or line is named."""

import json

import numpy as np
import pytest

from boardgym.agents.arena.stats import points_summary, wilson
from boardgym.agents.training.run_log import RunLog, curve_series, read_metrics


def test_what_run_log_writes_reads_back_as_curves(tmp_path):
    log = RunLog(tmp_path, "games", tensorboard=False)
    rng = np.random.default_rng(0)
    written = []
    for k in (3, 1, 2):  # curve_series sorts by the x key
        line = {"games": 1000 * k, "seconds": 2.5 * k}
        line["random"] = points_summary(rng.choice([-1.0, 0.0, 1.0], 40), -1.0, 1.0)
        line["greedy"] = points_summary(rng.choice([-3.0, -1.0, 1.0, 2.0], 30), -3.0, 3.0)
        log.evaluation(line)
        written.append(line)
    log.close()
    path, records = read_metrics(tmp_path)
    assert path == str(tmp_path / "metrics.jsonl")
    assert [no for no, _ in records] == [1, 2, 3] and [r for _, r in records] == written
    order = np.argsort([ln["games"] for ln in written])
    ppg = curve_series(path, records)
    assert set(ppg) == {"random", "greedy"}
    for name, rows in ppg.items():
        assert rows.shape == (3, 4) and rows.dtype == np.float64
        want = [(ln["games"], ln[name]["ppg"], *ln[name]["ci95"]) for ln in written]
        np.testing.assert_array_equal(rows, np.array(want)[order])
    wins = curve_series(path, records, x="seconds", y="win_rate")["greedy"]
    for row, ln in zip(wins, np.array(written)[order]):
        entry = ln["greedy"]
        lo, hi = wilson(entry["win_rate"] * entry["games"], entry["games"])
        assert tuple(row) == (ln["seconds"], entry["win_rate"], lo, hi)


def test_older_files_half_widths_and_win_rates_without_a_count(tmp_path):
    lines = [
        {"games": 10, "random": {"ppg": 0.25, "ci95": 0.5, "win_rate": 0.6}},
        "",  # blank lines are skipped, the numbering keeps them
        {"games": 20, "random": {"ppg": -0.5, "ci95": 0.125, "win_rate": 0.3}},
    ]
    (tmp_path / "metrics.jsonl").write_text(
        "".join((json.dumps(ln) if ln else "") + "\n" for ln in lines)
    )
    path, records = read_metrics(tmp_path)
    assert [no for no, _ in records] == [1, 3]
    rows = curve_series(path, records)["random"]
    np.testing.assert_array_equal(rows, [[10, 0.25, -0.25, 0.75], [20, -0.5, -0.625, -0.375]])
    wins = curve_series(path, records, y="win_rate")["random"]
    assert np.isnan(wins[:, 2:]).all() and list(wins[:, 1]) == [0.6, 0.3]


@pytest.mark.parametrize(
    "bad, message",
    [
        ('{"games": 3, "random": {"ppg": 0.1, "ci95"', "line 2: not valid JSON"),
        ("[1, 2, 3]", "line 2: expected a JSON object, got list"),
        ('{"games": 3, "seconds": 1.0}', "line 2: no opponent entries"),
        ('{"games": 3, "random": {"ppg": 0.1}}', "line 2: opponent 'random' has no 'ci95'"),
        ('{"games": "many", "random": {"ppg": 0.1, "ci95": 0.1}}', "line 2, 'games'"),
        ('{"games": true, "random": {"ppg": 0.1, "ci95": 0.1}}', "line 2, 'games'"),
        ('{"games": 3, "random": {"ppg": NaN, "ci95": 0.1}}', "line 2, random.ppg"),
        ('{"games": 3, "random": {"ppg": 0.1, "ci95": [0.0]}}', r"expected \[low, high\]"),
        ('{"games": 3, "random": {"ppg": 0.7, "ci95": [0.8, 1.0]}}', "does not contain ppg"),
        ('{"steps": 3, "random": {"ppg": 0.1, "ci95": 0.1}}', "line 2: no 'games' key"),
    ],
)
def test_a_bad_line_is_named_with_its_file_and_number(tmp_path, bad, message):
    good = json.dumps({"games": 1, "random": {"ppg": 0.0, "ci95": [-0.5, 0.5], "win_rate": 0.5}})
    (tmp_path / "metrics.jsonl").write_text(f"{good}\n{bad}\n")
    with pytest.raises(ValueError, match=message) as err:
        curve_series(*read_metrics(tmp_path))
    assert str(tmp_path / "metrics.jsonl") in str(err.value)


def test_a_run_without_evaluations_is_named(tmp_path):
    with pytest.raises(ValueError, match="no metrics.jsonl in run directory"):
        read_metrics(tmp_path)
    RunLog(tmp_path, "steps", tensorboard=False).close()  # the file is there from the start
    with pytest.raises(ValueError, match="no evaluations yet"):
        read_metrics(tmp_path)
