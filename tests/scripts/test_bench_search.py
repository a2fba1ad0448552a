"""Smoke test of scripts/bench_search.py with a tiny budget."""
import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).parents[2] / "scripts" / "bench_search.py"


def load():
    spec = importlib.util.spec_from_file_location("bench_search_script", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_bench_search_reports_nodes_per_second(capsys):
    mod = load()
    res = mod.main(["--depth", "3", "--positions", "3"])
    out = capsys.readouterr().out
    assert res["positions"] == 3 and res["nodes"] > 3 and res["nps"] > 0
    assert "M nodes/s" in out
    res_no_tt = mod.main(mod.Settings(depth=3, positions=3, no_tt=True))
    assert res_no_tt["nodes"] >= res["nodes"] * 0.5
