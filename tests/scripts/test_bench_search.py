"""Smoke test of scripts/bench_search.py with a tiny budget."""
from script_loader import load_script


def load():
    return load_script("bench_search")


def test_bench_search_reports_nodes_per_second(capsys):
    mod = load()
    res = mod.main(["--depth", "3", "--positions", "3"])
    out = capsys.readouterr().out
    assert res["positions"] == 3 and res["nodes"] > 3 and res["nps"] > 0
    assert "M nodes/s" in out
    res_no_tt = mod.main(mod.Settings(depth=3, positions=3, no_tt=True))
    assert res_no_tt["nodes"] >= res["nodes"] * 0.5
